import type { Request } from 'express';
import type { KeelSettings } from './settings';

/**
 * The address clients reach this server at, for links it hands out: `KEEL_PUBLIC_URL` when set,
 * else the request's own scheme and host. Express reads `X-Forwarded-Proto` / `X-Forwarded-Host`
 * for these only when `KEEL_TRUST_PROXY` trusts the peer (app.ts sets `trust proxy`), so a direct
 * client cannot make the server hand out links to a host of its choosing.
 */
export function publicBaseUrl(req: Request, settings: Pick<KeelSettings, 'publicUrl'>): string {
  if (settings.publicUrl) return settings.publicUrl;
  const host = req.host;
  return `${req.protocol}://${host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? host : 'localhost'}`;
}
