import type { Provider, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import request from 'supertest';
import { HTTP_BOUNDARY, keelHttpAdapter, useJsonBodies } from '../../src/http-boundary';

/** What the middleware before the controllers puts on a request (DirectoryMiddleware's Instance, the authenticator's organization). */
export type RequestContext = Partial<Pick<Request, 'instance' | 'orgId'>>;

export interface ControllerContext {
  app: NestExpressApplication;
  server: Server;
  /** supertest against the app's server (on an ephemeral loopback port). */
  http: () => ReturnType<typeof request>;
  close: () => Promise<void>;
}

/** The request id every request of a controller spec carries, so a 500's `ref` can be asserted. */
export const TEST_REQUEST_ID = 'req-controller-spec';

/**
 * Boots `controllers` alone behind Keel's real boundary (the global error filter and guards of
 * src/http-boundary.ts, Keel's HTTP adapter and JSON body parser), with `providers` standing in
 * for the services: small fake objects written in the spec (immich's `controllerSetup` in
 * server/test/utils.ts). No database, no feature module: a request takes milliseconds.
 */
export async function controllerSetup(controllers: Type[], providers: Provider[], context: RequestContext = {}): Promise<ControllerContext> {
  const moduleRef = await Test.createTestingModule({ controllers, providers: [...HTTP_BOUNDARY, ...providers] }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(keelHttpAdapter({ headersTimeoutMs: 10_000, requestTimeoutMs: 10_000 }), {
    bodyParser: false,
    logger: false,
  });
  app.use((req: Request, _res: Response, next: NextFunction) => {
    req.id = TEST_REQUEST_ID;
    Object.assign(req, context);
    next();
  });
  useJsonBodies(app);
  await app.init();
  const server = app.getHttpServer();
  return { app, server, http: () => request(server), close: () => app.close() };
}
