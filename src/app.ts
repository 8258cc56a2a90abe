import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { Authenticator } from './common/auth.middleware';
import { OrganizationsService } from './memory/organizations/organizations.service';
import { consoleDirectory, consoleHandler } from './common/console-static';
import { corsOptions } from './common/cors';
import { JsonLogger } from './common/logger';
import { parseQueryOnce } from './common/parsed-query';
import { requestLogging } from './common/request-log';
import { OriginPolicy } from './common/request-origin';
import { securityHeaders } from './common/security-headers';
import { KeelSettings } from './common/settings';
import { Metrics } from './observability/metrics.service';
import { requestMetrics } from './observability/request-metrics';
import { buildOpenApiDocument } from './openapi/document';
import { keelHttpAdapter, useJsonBodies } from './http-boundary';

export interface KeelApp {
  app: NestExpressApplication;
  logger: JsonLogger;
}

/** Builds the whole server (not yet listening): used by main.ts, the OpenAPI writer and the tests. */
export async function createKeelApp(settings: KeelSettings): Promise<KeelApp> {
  const logger = new JsonLogger(settings.logLevel);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(settings), keelHttpAdapter(settings), {
    logger,
    bodyParser: false,
    // A failed start is thrown to the caller (the CLI prints it in one line and exits non-zero), not exited here.
    abortOnError: false,
    // Graceful: streams are ended by shutdown hooks, then in-flight requests finish.
    forceCloseConnections: false,
  });
  if (settings.trustProxy) app.set('trust proxy', settings.trustProxy);
  app.disable('x-powered-by');
  app.use(parseQueryOnce);
  app.use(requestLogging({ lines: logger.pino.isLevelEnabled('info'), arrivals: logger.pino.isLevelEnabled('debug') }));
  app.use(requestMetrics(app.get(Metrics)));
  app.use(securityHeaders());
  // Before everything that answers: a rebound Host or another site's state change reaches nothing.
  const origins = app.get(OriginPolicy);
  app.use(origins.middleware());
  app.enableCors(corsOptions(origins));
  app.use(consoleHandler(consoleDirectory()));
  const authenticator = app.get(Authenticator);
  const organizations = app.get(OrganizationsService);
  authenticator.lookUpKeysWith((key) => organizations.resolveKey(key));
  app.use(authenticator.middleware());
  useJsonBodies(app);
  // Registered before init() (routes added after it would sit behind Nest's not-found handler); the
  // document itself is built on the first /doc or /docs request, which keeps it out of start-up.
  // The installed package carries Swagger UI's files beside the bundle (scripts/bundle.js); a checkout serves swagger-ui-dist's.
  const swaggerUi = join(__dirname, 'swagger-ui');
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app) as never, {
    jsonDocumentUrl: 'doc',
    customSiteTitle: 'Keel API',
    ...(existsSync(swaggerUi) ? { customSwaggerUiPath: swaggerUi } : {}),
  });
  await app.init();
  return { app, logger };
}

/** Listen; returns the bound URL. Request timeouts are the adapter's (KeelHttpAdapter). */
export async function listen(keel: KeelApp, host: string, port: number): Promise<string> {
  await keel.app.listen(port, host);
  const server: Server = keel.app.getHttpServer();
  server.keepAliveTimeout = 65_000;
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${boundPort}`;
}
