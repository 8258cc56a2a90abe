import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { UnauthorizedError } from '../../common/errors';

/**
 * The organization of a memory request, as the authenticator resolved it from the key
 * (common/auth.middleware.ts). Never a fallback: a memory handler reached without one refuses.
 */
export const Org = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const org = context.switchToHttp().getRequest<Request>().orgId;
  if (!org) throw new UnauthorizedError('No organization was resolved for this request');
  return org;
});
