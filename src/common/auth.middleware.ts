import type { NextFunction, Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { KeelSettings } from './settings';
import { surfaceOf } from './surface';

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The share pages are public: exactly `GET /share/<id>`, `/share/<id>/data` and `/share/<id>/event`
 * (raw path, as the router matches it; see surfaceOf). Any other path, method or shape needs the
 * server password as before.
 */
const PUBLIC_SHARE_PATH = /^\/share\/[A-Za-z0-9_-]{1,64}(?:\/data|\/event)?$/;

export function isPublicSharePath(req: Request): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && PUBLIC_SHARE_PATH.test(req.path);
}

/**
 * The two credentials of design.md: the server password (HTTP Basic, or `?auth_token=` =
 * base64(user:pass) for EventSource/WebSocket) guards the session surface and the routing
 * manager; API keys (`Authorization: Bearer` or `x-api-key`) guard the memory surface.
 * Secrets are compared by SHA-256 digest in constant time; only digests are kept. Which credential
 * applies is the surface the router will serve (surfaceOf), so one surface's credential never
 * reaches another surface's handler.
 */
export class Authenticator {
  private readonly basicDigest?: Buffer;
  private readonly apiKeyDigests: Buffer[];

  constructor(settings: KeelSettings) {
    if (settings.serverPassword) {
      this.basicDigest = sha256(`${settings.serverUsername}:${settings.serverPassword}`);
    }
    this.apiKeyDigests = settings.apiKeys.map(sha256);
  }

  /** True when the request may reach a session-surface or routing route. */
  allowsServer(authorization: string | undefined, authToken: string | undefined): boolean {
    if (!this.basicDigest) return true;
    let encoded = authToken;
    if (authorization?.startsWith('Basic ')) encoded = authorization.slice(6).trim();
    if (!encoded) return false;
    return safeEqual(sha256(Buffer.from(encoded, 'base64').toString('utf8')), this.basicDigest);
  }

  /** True when the request may reach a memory route. */
  allowsMemory(authorization: string | undefined, apiKey: string | undefined): boolean {
    if (this.apiKeyDigests.length === 0) return true;
    const key = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : apiKey;
    if (!key) return false;
    const digest = sha256(key);
    return this.apiKeyDigests.some((d) => safeEqual(d, digest));
  }

  middleware() {
    return (req: Request, res: Response, next: NextFunction): void => {
      if (req.method === 'OPTIONS') return next();
      if (isPublicSharePath(req)) return next();
      if (surfaceOf(req) === 'memory') {
        const apiKey = req.headers['x-api-key'];
        if (this.allowsMemory(req.headers.authorization, typeof apiKey === 'string' ? apiKey : undefined)) return next();
        res.status(401).json({ error: 'Unauthorized', details: 'A valid API key is required (Authorization: Bearer <key> or x-api-key)' });
        return;
      }
      const token = typeof req.query.auth_token === 'string' ? req.query.auth_token : undefined;
      if (this.allowsServer(req.headers.authorization, token)) return next();
      // A script's request (the console sends X-Requested-With) gets no challenge: a challenge would
      // make the browser open its own password dialog over the console's login page.
      if (!req.headers['x-requested-with']) res.setHeader('www-authenticate', 'Basic realm="Secure Area"');
      res.status(401).end();
    };
  }
}
