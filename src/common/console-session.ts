import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The console's sign-in cookie (HttpOnly, SameSite=Strict, Path=/). */
export const SESSION_COOKIE = 'keel_session';

/** The value of cookie `name` in a request's `Cookie` header, or undefined. */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const index = pair.indexOf('=');
    if (index < 0) continue;
    if (pair.slice(0, index).trim() === name) return pair.slice(index + 1).trim();
  }
  return undefined;
}

interface IssuedSession {
  token: string;
  expiresAt: number;
}

/**
 * Sign-in sessions of the console: a token `v1.<expiry>.<nonce>.<mac>`, the MAC an HMAC-SHA256 keyed
 * from the server credentials, so a token outlives a restart but not a change of password, and
 * nothing but the revocation list is kept. Signing out revokes the token's nonce until it would
 * have expired anyway (a revocation is held in memory: a restart forgets it, the expiry does not).
 */
export class ConsoleSessions {
  private readonly key: Buffer;
  private readonly revoked = new Map<string, number>();

  constructor(
    credentialDigest: Buffer,
    private readonly lifetimeMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.key = createHash('sha256').update('keel-console-session\0').update(credentialDigest).digest();
  }

  get lifetimeSeconds(): number {
    return Math.floor(this.lifetimeMs / 1000);
  }

  issue(): IssuedSession {
    const expiresAt = this.now() + this.lifetimeMs;
    const body = `v1.${expiresAt.toString(36)}.${randomBytes(16).toString('base64url')}`;
    return { token: `${body}.${this.mac(body)}`, expiresAt };
  }

  /** The expiry of a valid, unrevoked token; undefined for anything else. */
  check(token: string | undefined): number | undefined {
    if (!token || token.length > 200) return undefined;
    const parts = token.split('.');
    if (parts.length !== 4 || parts[0] !== 'v1') return undefined;
    const body = parts.slice(0, 3).join('.');
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(parts[3]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    const expiresAt = parseInt(parts[1], 36);
    if (!Number.isFinite(expiresAt) || expiresAt <= this.now()) return undefined;
    if (this.revoked.has(parts[2])) return undefined;
    return expiresAt;
  }

  revoke(token: string | undefined): void {
    const expiresAt = this.check(token);
    if (expiresAt === undefined || !token) return;
    const now = this.now();
    for (const [nonce, until] of this.revoked) if (until <= now) this.revoked.delete(nonce);
    this.revoked.set(token.split('.')[2], expiresAt);
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
