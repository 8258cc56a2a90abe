import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Instance } from '../projects/instance.service';

/** The Instance of the request's directory (session-surface routes only). */
export const CurrentInstance = createParamDecorator((_data: unknown, ctx: ExecutionContext): Instance => {
  const instance = ctx.switchToHttp().getRequest<Request>().instance;
  if (!instance) throw new Error('CurrentInstance used on a route without DirectoryMiddleware');
  return instance;
});
