import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';
import { SerializedJson, knownJson } from './serialized-json';

/** Bounds on how slowly a client may send a request (event streams and WebSockets are unaffected once open). */
export interface RequestTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/**
 * The server's request and response constructors, made with the app's own prototypes (`app.request`,
 * `app.response`), so that Express's `Object.setPrototypeOf` of each request and response finds them
 * already set. Changing a live object's prototype made V8 keep what every request allocated alive past
 * the next scavenge: on the health path, 2.5 MB promoted at each one and pauses of 8–20 ms, against
 * nothing promoted with the prototypes set from the start (bench/server-gc.mjs).
 */
function appPrototypeClasses(app: Express): { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse } {
  // Node's own constructors are plain functions, called here on the new object as a subclass would.
  function KeelRequest(this: IncomingMessage, socket: Socket) {
    Reflect.apply(IncomingMessage, this, [socket]);
  }
  KeelRequest.prototype = app.request;
  function KeelResponse(this: ServerResponse, req: IncomingMessage, options?: object) {
    Reflect.apply(ServerResponse, this, [req, options]);
  }
  KeelResponse.prototype = app.response;
  return { IncomingMessage: KeelRequest as unknown as typeof IncomingMessage, ServerResponse: KeelResponse as unknown as typeof ServerResponse };
}

/**
 * Keel's Express adapter: its HTTP server and its replies.
 *
 * The server makes its requests and responses with the app's prototypes (see appPrototypeClasses).
 *
 * The server bounds header and body time, so a connection that trickles its request (slow loris) is
 * answered 408 and closed instead of held forever. Node applies both bounds only while a request is
 * being received, never to the answer, so a prompt that answers when its turn ends is unaffected. They
 * must be given when the server is created, with the interval Node checks them at.
 *
 * Express sends a bare `true`, number or string as text and `null` as an empty body; the reference
 * answers JSON (`true`, `null`). Objects already go out as JSON and `undefined` stays an empty body
 * (204s). Done where Nest writes the reply rather than in an interceptor, which would put an
 * Observable pipeline on every request. A SerializedJson goes out as the bytes it holds, and the plain
 * JSON answer to a write as its text (Node writes a string with the headers in one piece), both
 * without the ETag Express's send would hash for them.
 */
export class KeelHttpAdapter extends ExpressAdapter {
  constructor(
    instance: Express,
    private readonly timeouts: RequestTimeouts,
  ) {
    super(instance);
  }

  override initHttpServer(options: NestApplicationOptions): void {
    if (options.httpsOptions || options.forceCloseConnections || options.return503OnClosing) return super.initHttpServer(options);
    const { headersTimeoutMs, requestTimeoutMs } = this.timeouts;
    const app = this.getInstance<Express>();
    this.httpServer = createServer(
      {
        ...appPrototypeClasses(app),
        headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
        requestTimeout: requestTimeoutMs,
        connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 4))),
      },
      app,
    );
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    // Written as it is: Express's send would hash it for an ETag each time (no client of these lists sends If-None-Match).
    if (body instanceof SerializedJson) return sendJson(response, body.bytes, statusCode);
    // An ETag only serves a GET's or HEAD's revalidation: the answer to a write is sent without one.
    if (isPlainJson(body) && response.req.method !== 'GET' && response.req.method !== 'HEAD' && !response.hasHeader('content-type'))
      return sendJson(response, knownJson(body) ?? JSON.stringify(body), statusCode);
    if (body === undefined || (typeof body === 'object' && body !== null)) return super.reply(response, body, statusCode);
    if (statusCode !== undefined) response.status(statusCode);
    return response.type('application/json').send(JSON.stringify(body));
  }
}

/** A plain object or array: what `res.json` would serialize with JSON.stringify alone. */
function isPlainJson(body: unknown): body is object {
  if (typeof body !== 'object' || body === null) return false;
  const prototype = Object.getPrototypeOf(body) as unknown;
  return prototype === Object.prototype || prototype === Array.prototype || prototype === null;
}

function sendJson(response: Response, json: Buffer | string, statusCode: number | undefined): unknown {
  if (statusCode !== undefined) response.status(statusCode);
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.setHeader('content-length', typeof json === 'string' ? Buffer.byteLength(json) : json.length);
  return response.end(json);
}
