import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingHttpHeaders } from 'node:http';
import { randomUUID } from 'node:crypto';
import { surfaceOf } from './surface';

/** Request lines go through the application logger (JsonLogger), like every other Keel log line. */
const log = new Logger('Http');

/** Headers that carry credentials: logged as `[redacted]`, never their value. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

/** Query parameters that carry credentials (`?auth_token=` for EventSource and WebSocket). */
const SECRET_PARAMS = new Set(['auth_token']);

function decodedKey(pair: string): string {
  const key = pair.split('=', 1)[0].replace(/\+/g, ' ');
  try {
    return decodeURIComponent(key).replace(/\[.*$/, '');
  } catch {
    return key;
  }
}

/**
 * The query string as received, with credential values replaced. Keys are compared decoded, as the
 * query parser reads them, so `auth%5Ftoken=` or `auth_token[]=` is redacted too.
 */
export function redactedQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => (SECRET_PARAMS.has(decodedKey(pair)) ? `${pair.split('=', 1)[0]}=[redacted]` : pair))
    .join('&');
}

function loggedHeaders(headers: IncomingHttpHeaders): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name) ? '[redacted]' : value]));
}

/**
 * What identifies a request on every line: its id, method, path, query (credentials redacted) and
 * client address. `req.ip` is the address the trusted proxy reports when `KEEL_TRUST_PROXY` is set,
 * the socket's peer otherwise.
 */
function requestFields(req: Request): Record<string, unknown> {
  const url = req.originalUrl ?? req.url;
  const mark = url.indexOf('?');
  return {
    requestId: req.id,
    method: req.method,
    path: req.path,
    ...(mark >= 0 && mark < url.length - 1 ? { query: redactedQuery(url.slice(mark + 1)) } : {}),
    ip: req.ip,
  };
}

/**
 * Debug level: a line as each request arrives, with protocol and host as the trusted proxy reports
 * them. Returns the request's fields, taken now: a mounted router rewrites `req.url` later.
 */
function logArrival(req: Request, debug: boolean): Record<string, unknown> {
  const fields = requestFields(req);
  if (debug) log.debug({ msg: 'request', ...fields, protocol: req.protocol, host: req.host, headers: loggedHeaders(req.headers) });
  return fields;
}

/**
 * A response that stays open (an event stream): logged when its headers go out, since its
 * completion line may come hours later or never before a crash.
 */
export function logStreamOpened(req: Request, res: Response): void {
  req.streaming = true;
  log.log({ msg: 'stream opened', ...requestFields(req), surface: req.surface, status: res.statusCode });
}

/**
 * A WebSocket upgrade request, which never passes through the Express middleware: the caller
 * gives it Express's request prototype first (for `ip`, `path`). Logs its arrival; the returned
 * functions log the answer: `opened` (101, then `websocket closed` with its duration when the
 * returned function is called) or `refused` with an HTTP status.
 */
export function logUpgrade(req: Request): { opened(): () => void; refused(status: number): void } {
  req.id = requestIdOf(req);
  surfaceOf(req);
  // Upgrades are rare: the line is always offered, and the logger drops it below debug level.
  const fields = logArrival(req, true);
  const start = process.hrtime.bigint();
  return {
    opened() {
      log.log({ msg: 'websocket opened', ...fields, surface: req.surface, status: 101 });
      return () => log.log({ msg: 'websocket closed', ...fields, status: 101, ms: elapsedMs(start) });
    },
    refused(status) {
      log.log({ msg: 'request', ...fields, status, ms: elapsedMs(start) });
    },
  };
}

/** The client's `x-request-id` when it is sane, else a fresh one. */
function requestIdOf(req: Request): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
}

function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * First middleware: gives each request an id (kept from `x-request-id` when sane), decides its
 * surface on the url exactly as the router will match it (see surfaceOf), and, when `lines`, logs
 * one line when the response is done or the client went away (`aborted`), streams included.
 * `arrivals`: also a debug line as each request arrives. Below info level (`lines` false) nothing
 * about the request is gathered at all.
 */
export function requestLogging({ lines, arrivals }: { lines: boolean; arrivals: boolean }) {
  return (req: Request, res: Response, next: NextFunction): void => {
    req.id = requestIdOf(req);
    res.setHeader('x-request-id', req.id);
    surfaceOf(req);
    if (!lines) return next();
    // The arrival line (headers copied and redacted) only when debug lines are written at all.
    const fields = logArrival(req, arrivals);
    const start = process.hrtime.bigint();
    res.on('close', () => {
      log.log({
        msg: req.streaming ? 'stream closed' : 'request',
        ...fields,
        status: res.statusCode,
        ms: elapsedMs(start),
        ...(res.writableFinished ? {} : { aborted: true }),
      });
    });
    next();
  };
}
