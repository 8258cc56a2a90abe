import { middlewareIssues, serviceIssues, serviceProtocol } from './definition-types';
import { canonical, parseJsonObject } from './json-text';
import { byExecutionOrder, DEFAULT_ROUTER_PRIORITY } from './resources.service';

type Json = Record<string, unknown>;

export interface DefinitionRow {
  id: string;
  type: string;
  config: string;
}

export interface ResourceRow {
  id: string;
  host: string;
  service_id: string;
  status: string;
  entrypoints: string | null;
  tls_domains: string | null;
  tcp_enabled: number | null;
  tcp_entrypoints: string | null;
  tcp_sni_rule: string | null;
  custom_headers: string | null;
  router_priority: number | null;
  source_type: string | null;
}

/** Everything the generator reads, straight from the five tables. */
export interface RoutingSnapshot {
  resources: ResourceRow[];
  middlewares: DefinitionRow[];
  services: DefinitionRow[];
  middlewareLinks: { resource_id: string; middleware_id: string; priority: number }[];
  serviceLinks: { resource_id: string; service_id: string }[];
}

export interface BuildOptions {
  /** Active data source: decides `badger@http` and the default service's provider. */
  activeSource: string;
  certResolver: string;
  /** Provider Traefik loads this document with: `file` (YAML file) or `http` (HTTP provider). */
  ownProvider: 'file' | 'http';
}

export interface TraefikDocument {
  http?: { routers?: Json; middlewares?: Json; services?: Json };
  tcp?: { routers?: Json; services?: Json };
}

const PANGOLIN_AUTH_MIDDLEWARE = 'badger@http';

/** `<id>-auth`, not doubled when the router id already ends in `-auth` (v3 naming). */
export function httpRouterName(resourceId: string): string {
  return resourceId.endsWith('-auth') ? resourceId : `${resourceId}-auth`;
}

export function tcpRouterName(resourceId: string): string {
  return `${resourceId}-tcp`;
}

function list(value: string | null, fallback: string): string[] {
  const entries = (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  return entries.length ? entries : [fallback];
}

function stringHeaders(text: string | null): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseJsonObject(text)))
    if (typeof value === 'string') headers[name] = value;
  return headers;
}

/** Names of other services a weighted/mirroring/failover service points at. */
function childServices(type: string, config: Json): string[] {
  const names: unknown[] = [];
  if (type === 'weighted' && Array.isArray(config.services))
    names.push(...(config.services as Json[]).map((s) => s?.name));
  if (type === 'mirroring') {
    names.push(config.service);
    if (Array.isArray(config.mirrors)) names.push(...(config.mirrors as Json[]).map((m) => m?.name));
  }
  if (type === 'failover') names.push(config.service, config.fallback);
  return names.filter((n): n is string => typeof n === 'string');
}

/** Keel's own object a reference names: unqualified, or qualified with the document's provider. */
function ownReference(name: string, ownProvider: string): string | undefined {
  const at = name.indexOf('@');
  if (at < 0) return name;
  return name.slice(at + 1) === ownProvider ? name.slice(0, at) : undefined;
}

/**
 * Traefik dynamic configuration from the tables (v3.0.3 generator semantics), emitting only
 * what active resources use and what is valid, with keys sorted so equal rows give equal bytes.
 */
export function buildTraefikConfig(snapshot: RoutingSnapshot, options: BuildOptions): TraefikDocument {
  const own = options.ownProvider;
  const pangolin = options.activeSource === 'pangolin';
  const middlewareRows = new Map(snapshot.middlewares.map((m) => [m.id, m]));
  const serviceRows = new Map(snapshot.services.map((s) => [s.id, s]));
  const validMiddleware = new Map<string, Json | null>();
  const validService = new Map<string, Json | null>();
  const checkMiddleware = (id: string): Json | null => {
    if (!validMiddleware.has(id)) {
      const row = middlewareRows.get(id);
      const config = row ? parseJsonObject(row.config) : null;
      validMiddleware.set(
        id,
        row && config && middlewareIssues(row.type, config).length === 0 ? config : null,
      );
    }
    return validMiddleware.get(id)!;
  };
  const checkService = (id: string): Json | null => {
    if (!validService.has(id)) {
      const row = serviceRows.get(id);
      const config = row ? parseJsonObject(row.config) : null;
      validService.set(id, row && config && serviceIssues(row.type, config).length === 0 ? config : null);
    }
    return validService.get(id)!;
  };

  const linksByResource = new Map<string, { id: string; priority: number }[]>();
  for (const link of snapshot.middlewareLinks) {
    const entries = linksByResource.get(link.resource_id) ?? [];
    entries.push({ id: link.middleware_id, priority: Number(link.priority) });
    linksByResource.set(link.resource_id, entries);
  }
  const serviceByResource = new Map<string, string>();
  for (const link of [...snapshot.serviceLinks].sort((a, b) => (a.service_id < b.service_id ? -1 : 1))) {
    if (!serviceByResource.has(link.resource_id)) serviceByResource.set(link.resource_id, link.service_id);
  }

  const httpRouters: Json = {};
  const tcpRouters: Json = {};
  const httpMiddlewares: Json = {};
  const usedMiddlewares = new Set<string>();
  const usedServices = new Set<string>();
  const active = snapshot.resources
    .filter((r) => r.status === 'active')
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  for (const resource of active) {
    const chain: string[] = [];
    const headers = stringHeaders(resource.custom_headers);
    if (Object.keys(headers).length) {
      const name = `${resource.id}-customheaders`;
      httpMiddlewares[name] = { headers: { customRequestHeaders: headers } };
      chain.push(`${name}@${own}`);
    }
    for (const link of (linksByResource.get(resource.id) ?? []).sort(byExecutionOrder)) {
      if (!checkMiddleware(link.id)) continue;
      usedMiddlewares.add(link.id);
      chain.push(`${link.id}@${own}`);
    }
    if (pangolin) chain.push(PANGOLIN_AUTH_MIDDLEWARE);

    const customService = serviceByResource.get(resource.id);
    const customConfig = customService ? checkService(customService) : null;
    const defaultService = (tcp: boolean): string => {
      if (resource.service_id.includes('@')) return resource.service_id;
      const docker = options.activeSource === 'traefik' && (!tcp || resource.source_type === 'traefik');
      return `${resource.service_id}@${docker ? 'docker' : 'http'}`;
    };
    const priority = resource.router_priority ?? DEFAULT_ROUTER_PRIORITY;
    const tls: Json = { certResolver: options.certResolver };
    const sans = list(resource.tls_domains, '').filter(Boolean);
    if (sans.length) tls.domains = [{ main: resource.host, sans }];
    const router: Json = {
      entryPoints: list(resource.entrypoints, 'websecure'),
      priority,
      rule: `Host(\`${resource.host}\`)`,
      service: customService && customConfig ? `${customService}@${own}` : defaultService(false),
      tls,
    };
    if (customService && customConfig) usedServices.add(customService);
    if (chain.length) router.middlewares = chain;
    httpRouters[httpRouterName(resource.id)] = router;

    if (Number(resource.tcp_enabled ?? 0) !== 0) {
      // A TCP router can only reach a TCP service: a custom HTTP service is not usable here.
      const tcpService =
        customService &&
        customConfig &&
        serviceProtocol(serviceRows.get(customService)!.type, customConfig) === 'tcp'
          ? `${customService}@${own}`
          : defaultService(true);
      tcpRouters[tcpRouterName(resource.id)] = {
        entryPoints: list(resource.tcp_entrypoints, 'tcp'),
        priority,
        rule: resource.tcp_sni_rule?.trim() || `HostSNI(\`${resource.host}\`)`,
        service: tcpService,
        tls: {},
      };
    }
  }

  // Chains name other middlewares; weighted/mirroring/failover services name other services.
  const pendingMiddlewares = [...usedMiddlewares];
  while (pendingMiddlewares.length) {
    const id = pendingMiddlewares.pop()!;
    const config = checkMiddleware(id)!;
    httpMiddlewares[id] = { [middlewareRows.get(id)!.type]: config };
    if (middlewareRows.get(id)!.type !== 'chain' || !Array.isArray(config.middlewares)) continue;
    for (const member of config.middlewares as unknown[]) {
      const ref = typeof member === 'string' ? ownReference(member, own) : undefined;
      if (ref && !usedMiddlewares.has(ref) && checkMiddleware(ref)) {
        usedMiddlewares.add(ref);
        pendingMiddlewares.push(ref);
      }
    }
  }
  const httpServices: Json = {};
  const tcpServices: Json = {};
  const pendingServices = [...usedServices];
  while (pendingServices.length) {
    const id = pendingServices.pop()!;
    const row = serviceRows.get(id)!;
    const config = checkService(id)!;
    (serviceProtocol(row.type, config) === 'tcp' ? tcpServices : httpServices)[id] = { [row.type]: config };
    for (const child of childServices(row.type, config)) {
      const ref = ownReference(child, own);
      if (ref && !usedServices.has(ref) && checkService(ref)) {
        usedServices.add(ref);
        pendingServices.push(ref);
      }
    }
  }

  const document: TraefikDocument = {};
  const http: Json = {};
  if (Object.keys(httpMiddlewares).length) http.middlewares = httpMiddlewares;
  if (Object.keys(httpRouters).length) http.routers = httpRouters;
  if (Object.keys(httpServices).length) http.services = httpServices;
  if (Object.keys(http).length) document.http = http;
  const tcp: Json = {};
  if (Object.keys(tcpRouters).length) tcp.routers = tcpRouters;
  if (Object.keys(tcpServices).length) tcp.services = tcpServices;
  if (Object.keys(tcp).length) document.tcp = tcp;
  return canonical(document);
}
