import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * The built console (console/dist), found by walking up from this module: it runs from dist/bundle,
 * from dist/src/common and from src/common under ts-jest. KEEL_CONSOLE_DIR overrides it.
 */
export function consoleDirectory(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.KEEL_CONSOLE_DIR)
    return existsSync(join(env.KEEL_CONSOLE_DIR, 'index.html')) ? env.KEEL_CONSOLE_DIR : undefined;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'console', 'dist');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

const COMPRESSIBLE: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/**
 * Hashed scripts and styles gzipped once and kept: they never change under their name, and the first
 * page's JavaScript is what a cold load waits for (about a third of its size once gzipped).
 */
function gzippedAssets(root: string): RequestHandler {
  // Only files that exist are kept (the assets of this build), so requests for made-up names add nothing.
  const cache = new Map<string, Buffer>();
  return (req, res, next) => {
    const type = COMPRESSIBLE[extname(req.path)];
    if (!type || !req.path.startsWith('/assets/') || !req.acceptsEncodings('gzip')) return next();
    let file: string;
    try {
      file = resolve(root, `.${decodeURIComponent(req.path)}`);
    } catch {
      return next();
    }
    if (!file.startsWith(root + sep)) return next();
    let body = cache.get(file);
    if (!body) {
      if (!existsSync(file)) return next();
      body = gzipSync(readFileSync(file), { level: 9 });
      cache.set(file, body);
    }
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('Content-Length', body.length);
    res.status(200).end(req.method === 'HEAD' ? undefined : body);
  };
}

/**
 * Serves the console at /ui/: hashed assets cached for a year, index.html (never cached) for every
 * client route. Mounted before authentication and Nest's routing: the page is public (its API calls
 * carry the credentials) and no session-surface middleware applies to it. A browser asking for `/`
 * is sent to /ui/; an API client's `GET /` (no text/html in Accept) is left to the API.
 */
export function consoleHandler(directory: string | undefined): RequestHandler {
  if (!directory) return (_req, _res, next) => next();
  const root = resolve(directory);
  const gzipped = gzippedAssets(root);
  const assets = express.static(root, {
    index: false,
    redirect: false,
    setHeaders(res, path) {
      const hashed = path.startsWith(join(root, 'assets'));
      res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path === '/' && req.accepts(['application/json', 'text/html']) === 'text/html')
      return res.redirect(302, '/ui/');
    if (req.path === '/ui') return res.redirect(301, '/ui/');
    if (!req.path.startsWith('/ui/')) return next();
    const rest = req.url.slice('/ui'.length);
    const original = req.url;
    req.url = rest;
    const serve = () =>
      assets(req, res, () => {
        req.url = original;
        // A missing asset is a 404, not the page: a stale hashed name must not be answered with HTML.
        if (req.path.startsWith('/ui/assets/')) return res.status(404).type('text/plain').send('Not found');
        res.setHeader('Cache-Control', 'no-cache');
        // Relative to `root`: given whole, a path with a dot-directory in it (`~/.local/…`, npm's
        // `~/.npm/_npx/…`) is refused by `send`, which then answers 404 for every console page.
        res.sendFile('index.html', { root });
      });
    gzipped(req, res, serve);
  };
}
