import express from 'express';
import type { Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { BodyTypeGuard } from './common/body-type.guard';
import { HttpErrorFilter } from './common/http-error.filter';
import { jsonBodies } from './common/json-body';
import { KeelHttpAdapter, RequestTimeouts } from './common/keel-http.adapter';
import { TextInputGuard } from './common/text-input.guard';
import { ReferenceValidator } from './openapi/reference-validator';

/**
 * What every request meets between the socket and a handler, declared once: AppModule registers
 * these globally, and the controller specs (test/support/controller-setup.ts) boot one controller
 * behind the same ones.
 */
export const HTTP_BOUNDARY: Provider[] = [
  // Renders every error in the dialect of the surface the request addressed.
  { provide: APP_FILTER, useClass: HttpErrorFilter },
  { provide: APP_GUARD, useClass: BodyTypeGuard },
  // The session surface's `@Operation` requests, checked against the reference OpenAPI.
  { provide: APP_GUARD, useClass: ReferenceValidator },
  { provide: APP_GUARD, useClass: TextInputGuard },
];

/**
 * Keel's Express adapter with case-sensitive routing, so `/V3/search` is no memory route (its
 * credential is decided by the exact path, see surfaceOf). Express reads the setting once, when its
 * router is created, and the adapter's constructor creates it: so it is set on an instance made here.
 */
export function keelHttpAdapter(timeouts: RequestTimeouts): KeelHttpAdapter {
  const server = express();
  server.set('case sensitive routing', true);
  return new KeelHttpAdapter(server, timeouts);
}

/**
 * JSON only (multipart where an API takes files, read by its own interceptor): a form or text/plain
 * body, which another site's page can send without asking, is never read (see BodyTypeGuard).
 */
export function useJsonBodies(app: NestExpressApplication): void {
  app.use(jsonBodies('50mb'));
}
