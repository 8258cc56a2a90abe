/** One upstream that reports routers: Pangolin's HTTP-provider config or the Traefik API. */
export interface DataSourceConfig {
  type: 'pangolin' | 'traefik';
  url: string;
  basic_auth: { username: string; password: string };
}

/** A router the data source reports, reduced to what a resource keeps. */
export interface DiscoveredRouter {
  id: string;
  host: string;
  serviceId: string;
  entrypoints: string;
  tlsDomains: string;
  priority?: number;
  sourceType: 'pangolin' | 'traefik';
  provider: string;
}

type Json = Record<string, unknown>;

/**
 * The URL of `path` under a source's base URL, built from its parts: the base's path is kept (Pangolin
 * may live under `/api/v1`), and a query or fragment in it can never swallow the path.
 */
export function sourceUrl(source: Pick<DataSourceConfig, 'url'>, path: string): URL {
  const base = new URL(source.url);
  const url = new URL(base.origin);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}${path}`;
  return url;
}

/** Where each source is probed and read (also the connection test). */
function routersUrl(source: DataSourceConfig): URL {
  return sourceUrl(source, source.type === 'pangolin' ? '/traefik-config' : '/api/http/routers');
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * `fetch failed` says nothing, and the exact network cause says too much: a refused connection
 * (closed port) told apart from a timeout (filtered port) makes the test button a port scanner. So:
 * what an operator acts on (no such host name, no connection, a TLS problem), nothing finer.
 */
export function describeFetchError(error: unknown): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string } };
  const code = err?.cause?.code ?? '';
  if (err?.name === 'TimeoutError' || UNREACHABLE.has(code))
    return 'could not connect (refused, unreachable or no answer in time)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name not found';
  if (/CERT|TLS|SSL|SELF_SIGNED/.test(code)) return `TLS handshake failed (${code})`;
  return String(err?.message ?? error);
}

export async function fetchJson(
  source: DataSourceConfig,
  timeoutMs: number,
  url = routersUrl(source),
): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (source.basic_auth?.username) {
    headers.authorization = `Basic ${Buffer.from(`${source.basic_auth.username}:${source.basic_auth.password ?? ''}`).toString('base64')}`;
  }
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  if (response.status >= 400) throw new Error(`${url} answered HTTP ${response.status}`);
  return response.json();
}

/** Provider suffix of a Traefik object name (`x@docker` → `docker`). */
export function splitProvider(name: string): { base: string; provider: string } {
  const at = name.indexOf('@');
  return at < 0 ? { base: name, provider: '' } : { base: name.slice(0, at), provider: name.slice(at + 1) };
}

/**
 * The host a router rule matches: the first ``Host(`x`)`` (also in `&&`/`||` rules), a readable
 * pseudo-host for ``HostRegexp(`…`)``, or legacy `Host:x`. Undefined when the rule names no host.
 */
function hostFromRule(rule: unknown): string | undefined {
  if (typeof rule !== 'string') return undefined;
  const host = /Host\(\s*[`"']([^`"']+)[`"']/.exec(rule);
  if (host) return host[1].trim();
  const regexp = /HostRegexp\(\s*[`"']([^`"']+)[`"']/.exec(rule);
  if (regexp)
    return regexp[1]
      .replace(/\{[^}]*\}/g, 'any')
      .replace(/\.\+|\.\*/g, 'any-host')
      .replace(/[\\^$]/g, '');
  const legacy = /Host:\s*([^\s,;]+)/.exec(rule);
  return legacy ? legacy[1] : undefined;
}

function entrypointsOf(router: Json): string {
  const list = router.entryPoints;
  return Array.isArray(list) ? list.filter((e): e is string => typeof e === 'string').join(',') : '';
}

function tlsDomainsOf(router: Json): string {
  const domains = (router.tls as Json | undefined)?.domains;
  if (!Array.isArray(domains)) return '';
  const names: string[] = [];
  for (const d of domains as Json[]) {
    if (typeof d?.main === 'string') names.push(d.main);
    if (Array.isArray(d?.sans)) names.push(...d.sans.filter((s): s is string => typeof s === 'string'));
  }
  return names.join(',');
}

// Pangolin's own UI/API routers, never user resources (v3 fetcher).
const PANGOLIN_SYSTEM_ROUTERS = ['api-router', 'next-router', 'ws-router'];

/** Routers of Pangolin's `/traefik-config`: only TLS routers with a host (the redirect routers are dropped). */
function pangolinRouters(body: unknown): DiscoveredRouter[] {
  const routers = ((body as Json | null)?.http as Json | undefined)?.routers as
    Record<string, Json> | undefined;
  if (!routers || typeof routers !== 'object') return [];
  const out: DiscoveredRouter[] = [];
  for (const name of Object.keys(routers).sort()) {
    const router = routers[name];
    const certResolver = (router?.tls as Json | undefined)?.certResolver;
    const host = hostFromRule(router?.rule);
    if (!host || typeof certResolver !== 'string' || !certResolver) continue;
    if (PANGOLIN_SYSTEM_ROUTERS.some((s) => name.includes(s))) continue;
    const { base } = splitProvider(name);
    out.push({
      id: base,
      host,
      serviceId: typeof router.service === 'string' ? router.service : '',
      entrypoints: entrypointsOf(router),
      tlsDomains: tlsDomainsOf(router),
      sourceType: 'pangolin',
      provider: 'http',
    });
  }
  return out;
}

/**
 * A Traefik router names its service without a provider when both come from the same provider;
 * keeping the provider makes the generated reference exact (`@file`, `@docker`, …; issue #32).
 */
function qualifiedService(service: unknown, provider: string): string {
  if (typeof service !== 'string') return '';
  return service.includes('@') || !provider ? service : `${service}@${provider}`;
}

/** Routers of the Traefik API's `/api/http/routers` (array, or a map keyed by name); internal routers skipped. */
function traefikRouters(body: unknown): DiscoveredRouter[] {
  const list: Json[] = Array.isArray(body)
    ? (body as Json[])
    : body && typeof body === 'object'
      ? Object.entries(body as Record<string, Json>).map(([name, r]) => ({ name, ...r }))
      : [];
  const out: DiscoveredRouter[] = [];
  for (const router of [...list].sort((a, b) => String(a.name).localeCompare(String(b.name)))) {
    if (typeof router?.name !== 'string') continue;
    const { base, provider: suffix } = splitProvider(router.name);
    const provider = typeof router.provider === 'string' ? router.provider : suffix;
    if (provider === 'internal' || suffix === 'internal') continue;
    const host = hostFromRule(router.rule);
    if (!host) continue;
    const priority =
      typeof router.priority === 'number' && Number.isInteger(router.priority) ? router.priority : undefined;
    out.push({
      id: base,
      host,
      serviceId: qualifiedService(router.service, provider),
      entrypoints: entrypointsOf(router),
      tlsDomains: tlsDomainsOf(router),
      priority,
      sourceType: 'traefik',
      provider,
    });
  }
  return out;
}

export async function fetchRouters(source: DataSourceConfig, timeoutMs: number): Promise<DiscoveredRouter[]> {
  const body = await fetchJson(source, timeoutMs);
  return source.type === 'pangolin' ? pangolinRouters(body) : traefikRouters(body);
}
