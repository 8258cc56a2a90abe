import type { NextFunction, Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ConsoleSessions, readCookie, SESSION_COOKIE } from './console-session';
import { fromOwnPage } from './request-origin';
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

function isPublicSharePath(req: Request): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && PUBLIC_SHARE_PATH.test(req.path);
}

/** The organization of a stored API key (undefined: no such key), see OrganizationsService.resolveKey. */
type KeyResolver = (key: string) => Promise<string | undefined>;

/** The organization of `KEEL_API_KEYS` and of keyless requests (memory/organizations/organization.entity.ts). */
const DEFAULT_ORG = 'local';
/** Keys Keel issues start with this: one presented and not stored is refused even where keys are optional. */
const ISSUED_KEY = 'keel_';

/** The console's sign-in routes, reached without credentials (they are how one gets them). */
const SIGN_IN_PATHS = new Set(['/keel/auth', '/keel/login', '/keel/logout']);

/**
 * The two credentials of design.md: the server password (HTTP Basic, or `?auth_token=` =
 * base64(user:pass) for EventSource/WebSocket) guards the session surface and the routing
 * manager; API keys (`Authorization: Bearer` or `x-api-key`) guard the memory surface.
 * Secrets are compared by SHA-256 digest in constant time; only digests are kept. Which credential
 * applies is the surface the router will serve (surfaceOf), so one surface's credential never
 * reaches another surface's handler.
 *
 * The console signs in once (`POST /keel/login`) and then holds the server password's stand-in, a
 * session cookie (see ConsoleSessions): it counts as the password only on requests from Keel's own
 * pages (fromOwnPage), never on the memory surface. Provided once by SettingsModule.
 */
export class Authenticator {
  private readonly basicDigest?: Buffer;
  private readonly apiKeyDigests: Buffer[];
  /** Undefined when the server has no password (nothing to sign in to). */
  readonly sessions?: ConsoleSessions;

  /** Where stored keys are looked up (the organizations' keys); set once the app is built. */
  private resolveKey?: KeyResolver;

  constructor(settings: KeelSettings) {
    if (settings.serverPassword) {
      this.basicDigest = sha256(`${settings.serverUsername}:${settings.serverPassword}`);
      this.sessions = new ConsoleSessions(this.basicDigest, settings.consoleSessionHours * 3_600_000);
    }
    this.apiKeyDigests = settings.apiKeys.map(sha256);
  }

  /** Stored keys (an organization's) are looked up with `resolveKey`; without it only KEEL_API_KEYS count. */
  lookUpKeysWith(resolveKey: KeyResolver): void {
    this.resolveKey = resolveKey;
  }

  get passwordRequired(): boolean {
    return this.basicDigest !== undefined;
  }

  /** True when `username:password` is the server's credential. */
  checkPassword(username: string, password: string): boolean {
    return !this.basicDigest || safeEqual(sha256(`${username}:${password}`), this.basicDigest);
  }

  /** The expiry of the request's console session, when it carries a valid one from Keel's own page. */
  cookieSession(req: IncomingMessage): number | undefined {
    if (!this.sessions || !fromOwnPage(req)) return undefined;
    return this.sessions.check(readCookie(req, SESSION_COOKIE));
  }

  /** True when the request may reach a session-surface or routing route: the password, or the console's cookie. */
  allowsServerRequest(req: IncomingMessage & { query?: Record<string, unknown> }): boolean {
    const token = typeof req.query?.auth_token === 'string' ? req.query.auth_token : undefined;
    return this.allowsServer(req.headers.authorization, token) || this.cookieSession(req) !== undefined;
  }

  /** True when the request may reach a session-surface or routing route. */
  allowsServer(authorization: string | undefined, authToken: string | undefined): boolean {
    if (!this.basicDigest) return true;
    let encoded = authToken;
    if (authorization?.startsWith('Basic ')) encoded = authorization.slice(6).trim();
    if (!encoded) return false;
    return safeEqual(sha256(Buffer.from(encoded, 'base64').toString('utf8')), this.basicDigest);
  }

  /**
   * The organization a memory request acts for, or undefined when it may not reach a memory route:
   * a key of `KEEL_API_KEYS` is the default organization; any other key must be an organization's
   * key stored in the database (looked up at every request, so a revocation applies at once on every
   * replica). Without `KEEL_API_KEYS`, a request without a key (or with a key Keel did not issue, as
   * before organizations) is the default organization.
   */
  async memoryOrg(authorization: string | undefined, apiKey: string | undefined): Promise<string | undefined> {
    const key = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : apiKey;
    const open = this.apiKeyDigests.length === 0;
    if (!key) return open ? DEFAULT_ORG : undefined;
    const digest = sha256(key);
    if (this.apiKeyDigests.some((d) => safeEqual(d, digest))) return DEFAULT_ORG;
    const org = this.resolveKey ? await this.resolveKey(key) : undefined;
    if (org) return org;
    return open && !key.startsWith(ISSUED_KEY) ? DEFAULT_ORG : undefined;
  }

  middleware() {
    return (req: Request, res: Response, next: NextFunction): void => {
      if (req.method === 'OPTIONS') return next();
      if (isPublicSharePath(req)) return next();
      if (surfaceOf(req) === 'memory') {
        const apiKey = req.headers['x-api-key'];
        this.memoryOrg(req.headers.authorization, typeof apiKey === 'string' ? apiKey : undefined).then(
          (org) => {
            if (org) {
              req.orgId = org;
              return next();
            }
            res.status(401).json({ error: 'Unauthorized', details: 'A valid API key is required (Authorization: Bearer <key> or x-api-key)' });
          },
          (error: unknown) => next(error),
        );
        return;
      }
      if (SIGN_IN_PATHS.has(req.path)) return next();
      if (this.allowsServerRequest(req)) return next();
      // A script's request (the console sends X-Requested-With) gets no challenge: a challenge would
      // make the browser open its own password dialog over the console's login page.
      if (!req.headers['x-requested-with']) res.setHeader('www-authenticate', 'Basic realm="Secure Area"');
      res.status(401).end();
    };
  }
}
