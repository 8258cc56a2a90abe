import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger as Pino } from 'pino';
import { surfaceOf } from './surface';

/** Gives each request an id (kept from `x-request-id` when sane) and logs it on completion. */
export function requestLogging(log: Pino) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.headers['x-request-id'];
    req.id = typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', req.id);
    // First middleware: the surface is decided here, on the url exactly as the router will match it.
    surfaceOf(req);
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      log.info({
        requestId: req.id,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - start) / 1e6,
      });
    });
    next();
  };
}
