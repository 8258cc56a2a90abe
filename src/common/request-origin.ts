import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { domainError } from './errors';
import { sendError } from './http-error.filter';
import { isLoopback } from './settings';
import type { KeelSettings } from './settings';

/** A request refused for where it comes from (another site, or a Host this server does not answer to). */
class ForbiddenError extends domainError(403, 'ForbiddenError') {}

/** Origins every Keel trusts: loopback pages (any port) and the desktop app's Tauri origins, as the reference allows. */
const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
const TAURI_ORIGINS = new Set(['tauri://localhost', 'http://tauri.localhost', 'https://tauri.localhost']);

/** Methods that change nothing: a cross-site page may send them (and read nothing unless CORS allows it). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The host name of a `Host` header value or a configured name (`name[:port]`, `[v6]:port`, a bare
 * IPv6 address), lower-cased, without a trailing dot; IPv6 addresses in brackets.
 */
function hostName(host: string): string {
  // Every IPv6 address has two colons or more; a name or an IPv4 address with its port, one at most. So the
  // common Host skips isIP's IPv6 pattern, whose compilation at the first request took 4 ms of every start.
  if (host.indexOf(':') !== host.lastIndexOf(':') && isIP(host) === 6) return `[${host.toLowerCase()}]`;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  return name.toLowerCase().replace(/\.$/, '');
}

/**
 * Whether a request comes from a page of this very origin (or from no page: an address typed, a
 * tool). Stricter than OriginPolicy's rule, which also trusts loopback pages on other ports and
 * configured origins: the console's sign-in cookie is honoured only here, so a page of another origin
 * that the browser deems same-site (`localhost:5173` against `localhost:4096`) cannot borrow it.
 */
export function fromOwnPage(req: IncomingMessage): boolean {
  const fetchSite = req.headers['sec-fetch-site'];
  if (fetchSite !== undefined) return fetchSite === 'same-origin' || fetchSite === 'none';
  const origin = req.headers.origin;
  return origin === undefined || isHostOrigin(origin, req.headers.host);
}

/** Whether `origin` is the origin of the server a request's `Host` names (`Origin` and `Host` agree). */
function isHostOrigin(origin: string, host: string | undefined): boolean {
  if (origin === 'null' || !host || !URL.canParse(origin)) return false;
  return new URL(origin).host === host.toLowerCase();
}

/**
 * Where requests may come from (design.md §6). A loopback server is reachable from every page its user
 * opens, so two rules hold in every configuration, before authentication and before any handler:
 *
 * - **Host** (DNS rebinding): a page on `attacker.example` whose name is rebound to 127.0.0.1 is
 *   same-origin with it in the browser's eyes, but its requests still say `Host: attacker.example`.
 *   On a loopback bind only loopback names and the configured ones are served.
 * - **Origin** (cross-site requests): a state-changing request from a browser must come from an allowed
 *   origin. As Go's `http.CrossOriginProtection` decides it: `Sec-Fetch-Site: same-origin|none`, or an
 *   `Origin` whose host is the request's `Host`, is the server's own page; other origins must be trusted
 *   (loopback, Tauri, `KEEL_CORS`, `KEEL_PUBLIC_URL`). A request with neither header is no browser's
 *   (SDKs, TUIs, curl) and passes. Forms, `text/plain` and `no-cors` fetches all carry `Origin`.
 */
export class OriginPolicy {
  private readonly trustedOrigins: Set<string>;
  /** Host names served; undefined when any is (a non-loopback bind with no list configured). */
  private readonly allowedHosts?: Set<string>;

  constructor(settings: Pick<KeelSettings, 'host' | 'corsOrigins' | 'allowedHosts' | 'publicUrl'>) {
    const publicOrigin = settings.publicUrl ? new URL(settings.publicUrl) : undefined;
    this.trustedOrigins = new Set([...settings.corsOrigins, ...(publicOrigin ? [publicOrigin.origin] : [])]);
    const configured = [...settings.allowedHosts, ...(publicOrigin ? [publicOrigin.host] : [])].map(hostName);
    if (isLoopback(settings.host) || settings.allowedHosts.length > 0) {
      this.allowedHosts = new Set(configured);
    }
  }

  /** Whether a page of this origin may call the API (CORS answers, and state changes). */
  trusts(origin: string): boolean {
    return LOOPBACK_ORIGIN.test(origin) || TAURI_ORIGINS.has(origin) || this.trustedOrigins.has(origin);
  }

  /** Why this request's `Host` is not served, or undefined when it is. */
  hostRefusal(req: IncomingMessage): string | undefined {
    const host = req.headers.host;
    // No Host at all is no browser's request (HTTP/1.0 tools): nothing to rebind.
    if (!this.allowedHosts || !host) return undefined;
    const name = hostName(host);
    if (isLoopback(name) || this.allowedHosts.has(name)) return undefined;
    return `Host "${host.slice(0, 200)}" is not served by this Keel (DNS rebinding protection): add its name to KEEL_ALLOWED_HOSTS, or set KEEL_PUBLIC_URL, to serve it`;
  }

  /** Why this request is refused as cross-site, or undefined when it may go on. `always` checks safe methods too (WebSocket upgrades). */
  crossSiteRefusal(req: IncomingMessage, always = false): string | undefined {
    if (!always && SAFE_METHODS.has(req.method ?? 'GET')) return undefined;
    const origin = req.headers.origin;
    const fetchSite = req.headers['sec-fetch-site'];
    if (fetchSite === 'same-origin' || fetchSite === 'none') return undefined;
    if (origin === undefined) {
      if (fetchSite === undefined) return undefined;
      return `Cross-site request refused (Sec-Fetch-Site: ${String(fetchSite).slice(0, 40)}, no Origin)`;
    }
    if (this.trusts(origin) || isHostOrigin(origin, req.headers.host)) return undefined;
    return `Cross-site request refused: origin ${origin.slice(0, 200)} is not allowed (allowed: this server, loopback pages and KEEL_CORS)`;
  }

  /** Express middleware applying both rules to every request, in the surface's error dialect. */
  middleware() {
    return (req: Request, res: Response, next: NextFunction): void => {
      const refusal = this.hostRefusal(req) ?? this.crossSiteRefusal(req);
      if (refusal === undefined) return next();
      res.setHeader('Vary', 'Origin');
      sendError(req, res, new ForbiddenError(refusal));
    };
  }
}
