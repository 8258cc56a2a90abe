import type { Request } from 'express';

/** The three API surfaces of design.md §1: each has its own credential and error dialect. */
export type Surface = 'session' | 'memory' | 'routing';

/**
 * The routing manager's own route prefixes (middleware-manager v3's API and Traefik's HTTP provider).
 * Only these: newer opencode clients call other `/api/*` routes (`/api/agent`, `/api/fs/find`, …,
 * opencode's v2 API), which belong to the session surface (its password, its error dialect, its
 * per-directory Instance). No session route lies under one of these prefixes, and no routing route
 * outside them (test/opencode-v2-api.e2e-spec.ts checks both against `/doc`).
 */
export const ROUTING_PREFIXES = ['/api/middlewares', '/api/services', '/api/resources', '/api/datasource', '/api/datasources', '/api/traefik', '/api/traefik-config', '/api/v1/traefik-config', '/api/plugins'];

/**
 * The surface a request path addresses. It must agree with the router, or a request could be
 * authenticated as one surface and served by another: so it reads the raw path (undecoded, as
 * Express matches it), case-sensitively (routing is case-sensitive, see app.ts), and the router's
 * optional trailing slash (`/health/` is `/health`). A variant no route of the surface matches
 * (`/V3/…`, `/v3%2F…`, `//v3/…`, `/v3/search;x`) falls to the session surface: it needs the
 * password and ends as a 404, never at a memory handler.
 */
export function surfaceOfPath(path: string): Surface {
  if (path.startsWith('/v3/') || path.startsWith('/v4/')) return 'memory';
  if (path === '/health' || path === '/health/' || ROUTING_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return 'routing';
  return 'session';
}

/**
 * The surface of a request, decided once by the first middleware (request logging), where
 * `req.path` is exactly the path the application router matches: Express's own parser (which
 * also turns `/v3\search#x` into `/v3/search`) on the url as received. Later readers (the
 * authenticator, the error filter) get the same answer even inside a mounted router, where
 * Express has rewritten `req.url`.
 */
export function surfaceOf(req: Request): Surface {
  return (req.surface ??= surfaceOfPath(req.path));
}
