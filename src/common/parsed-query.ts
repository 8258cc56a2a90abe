import type { NextFunction, Request, Response } from 'express';

/**
 * First middleware: the query string parsed once and kept on the request as a plain property.
 * Express 5's `req.query` is a getter that parses the query string again at every read, and a
 * session create read it five times (the credential check, the directory, the reference validator,
 * the text guard, Nest's `@Query`): 5.8 µs of a create's CPU profile, 2.3 µs parsed once.
 */
export function parseQueryOnce(req: Request, _res: Response, next: NextFunction): void {
  Object.defineProperty(req, 'query', { value: req.query, writable: true, enumerable: true, configurable: true });
  next();
}
