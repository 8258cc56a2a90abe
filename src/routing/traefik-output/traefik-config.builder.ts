import { commaList } from '../../common/comma-list';
import { ValidationIssue } from '../../common/errors';
import { serviceProtocol } from '../definition-rules';
import { middlewareIssues, serviceIssues } from '../definitions/definition-types';
import { canonical, parseJsonObject } from '../json-text';
import type { RoutingResource } from '../resources/resource.entity';
import { byExecutionOrder, byId, DEFAULT_ROUTER_PRIORITY } from '../resources/resources.service';

type Json = Record<string, unknown>;

export interface DefinitionRow {
  id: string;
  type: string;
  config: string;
}

/** The columns of a resource the generator reads. */
type ResourceRow = Omit<RoutingResource, 'org_id' | 'site_id' | 'status' | 'created_at' | 'updated_at'> & {
  status: string;
};

/** Everything the generator reads, straight from the five tables. */
export interface RoutingSnapshot {
  resources: ResourceRow[];
  middlewares: DefinitionRow[];
  services: DefinitionRow[];
  middlewareLinks: { resource_id: string; middleware_id: string; priority: number }[];
  serviceLinks: { resource_id: string; service_id: string }[];
}

interface BuildOptions {
  /** Active data source: decides `badger@http` and the default service's provider. */
  activeSource: string;
  certResolver: string;
  /** Provider Traefik loads this document with: `file` (YAML file) or `http` (HTTP provider). */
  ownProvider: 'file' | 'http';
  /** Told about every row left out because Traefik would refuse it. */
  onInvalidRow?: (row: InvalidRow) => void;
}

/** A middleware or service row left out of the document, with what Traefik would refuse. */
export interface InvalidRow {
  kind: 'middleware' | 'service';
  id: string;
  reason: string;
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

function list(value: string | null, fallback: string): string[] {
  const entries = commaList(value);
  return entries.length ? entries : [fallback];
}

function stringHeaders(text: string | null): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseJsonObject(text)))
    if (typeof value === 'string') headers[name] = value;
  return headers;
}

function describe(issues: ValidationIssue[]): string {
  return issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
}

/**
 * Every valid row of one definition table, keyed by id (sorted). A row Traefik would refuse is
 * left out and reported, never the whole document (reference issue #70).
 */
function validRows(
  kind: InvalidRow['kind'],
  rows: DefinitionRow[],
  issuesOf: (type: string, config: unknown) => ValidationIssue[],
  onInvalidRow: BuildOptions['onInvalidRow'],
): Map<string, { type: string; config: Json }> {
  const valid = new Map<string, { type: string; config: Json }>();
  for (const row of [...rows].sort(byId)) {
    const config = parseJsonObject(row.config);
    const issues = issuesOf(row.type, config);
    if (issues.length) onInvalidRow?.({ kind, id: row.id, reason: describe(issues) });
    else valid.set(row.id, { type: row.type, config });
  }
  return valid;
}

/**
 * Traefik dynamic configuration from the tables (v3.0.3 generator semantics): every valid
 * middleware and service row, used or not, so that Docker labels or other files referencing
 * `authelia@file` keep resolving; routers for active resources only. Keys are sorted so equal
 * rows give equal bytes.
 */
export function buildTraefikConfig(snapshot: RoutingSnapshot, options: BuildOptions): TraefikDocument {
  const own = options.ownProvider;
  const pangolin = options.activeSource === 'pangolin';
  const middlewares = validRows('middleware', snapshot.middlewares, middlewareIssues, options.onInvalidRow);
  const services = validRows('service', snapshot.services, serviceIssues, options.onInvalidRow);

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
  for (const [id, { type, config }] of middlewares) httpMiddlewares[id] = { [type]: config };
  const httpServices: Json = {};
  const tcpServices: Json = {};
  for (const [id, { type, config }] of services)
    (serviceProtocol(type, config) === 'tcp' ? tcpServices : httpServices)[id] = { [type]: config };

  const active = snapshot.resources.filter((r) => r.status === 'active').sort(byId);

  for (const resource of active) {
    const chain: string[] = [];
    const headers = stringHeaders(resource.custom_headers);
    if (Object.keys(headers).length) {
      const name = `${resource.id}-customheaders`;
      httpMiddlewares[name] = { headers: { customRequestHeaders: headers } };
      chain.push(`${name}@${own}`);
    }
    for (const link of (linksByResource.get(resource.id) ?? []).sort(byExecutionOrder)) {
      if (middlewares.has(link.id)) chain.push(`${link.id}@${own}`);
    }
    if (pangolin) chain.push(PANGOLIN_AUTH_MIDDLEWARE);

    const assigned = serviceByResource.get(resource.id);
    const custom = assigned ? services.get(assigned) : undefined;
    const defaultService = (tcp: boolean): string => {
      if (resource.service_id.includes('@')) return resource.service_id;
      const docker = options.activeSource === 'traefik' && (!tcp || resource.source_type === 'traefik');
      return `${resource.service_id}@${docker ? 'docker' : 'http'}`;
    };
    const priority = resource.router_priority ?? DEFAULT_ROUTER_PRIORITY;
    const tls: Json = { certResolver: options.certResolver };
    const sans = commaList(resource.tls_domains);
    if (sans.length) tls.domains = [{ main: resource.host, sans }];
    const router: Json = {
      entryPoints: list(resource.entrypoints, 'websecure'),
      priority,
      rule: `Host(\`${resource.host}\`)`,
      service: custom ? `${assigned}@${own}` : defaultService(false),
      tls,
    };
    if (chain.length) router.middlewares = chain;
    httpRouters[httpRouterName(resource.id)] = router;

    if (Number(resource.tcp_enabled ?? 0) !== 0) {
      // A TCP router can only reach a TCP service: a custom HTTP service is not usable here.
      const tcpService =
        custom && serviceProtocol(custom.type, custom.config) === 'tcp'
          ? `${assigned}@${own}`
          : defaultService(true);
      tcpRouters[`${resource.id}-tcp`] = {
        entryPoints: list(resource.tcp_entrypoints, 'tcp'),
        priority,
        rule: resource.tcp_sni_rule?.trim() || `HostSNI(\`${resource.host}\`)`,
        service: tcpService,
        tls: {},
      };
    }
  }

  const http = filled({ middlewares: httpMiddlewares, routers: httpRouters, services: httpServices });
  const tcp = filled({ routers: tcpRouters, services: tcpServices });
  return canonical<TraefikDocument>({ ...(http && { http }), ...(tcp && { tcp }) });
}

/** The sections that hold something, or undefined when none does (the document leaves empty ones out). */
function filled<T extends Record<string, Json>>(sections: T): Partial<T> | undefined {
  const kept = Object.entries(sections).filter(([, section]) => Object.keys(section).length > 0);
  return kept.length ? (Object.fromEntries(kept) as Partial<T>) : undefined;
}
