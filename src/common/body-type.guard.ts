import { applyDecorators, CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiConsumes } from '@nestjs/swagger';
import type { Request } from 'express';
import { UnsupportedMediaTypeError } from './errors';

const BODY_TYPES = 'keel:body-types';
const JSON_ONLY = ['application/json'];

/** The body types a route takes instead of JSON: checked by BodyTypeGuard and shown in `/doc`, from this one declaration. */
export const Consumes = (...types: string[]) => applyDecorators(SetMetadata(BODY_TYPES, types), ApiConsumes(...types));

/** A body is present when one is announced: a non-zero length, or chunks. */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Request bodies must be JSON, or what the route declares with `@Consumes` (multipart where an API
 * takes files). A form or `text/plain` body, which another site's page can send without a preflight,
 * is refused before any handler acts on a request whose body it never read.
 */
@Injectable()
export class BodyTypeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): true {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    if (!hasBody(req)) return true;
    const consumes = this.reflector.getAllAndOverride<string[] | undefined>(BODY_TYPES, [context.getHandler(), context.getClass()]) ?? JSON_ONLY;
    // The JSON parser read it as application/json already: no second parse of its content-type.
    if ((consumes === JSON_ONLY && req.jsonBody) || req.is(consumes)) return true;
    const sent = req.headers['content-type'] ? `"${req.headers['content-type'].slice(0, 100)}"` : 'none';
    throw new UnsupportedMediaTypeError(`content-type: this request's body must be ${consumes.join(' or ')} (got ${sent})`);
  }
}
