import { Inject, Injectable } from '@nestjs/common';
import { describeFetchError, fetchJson, sourceUrl, splitProvider } from '../data-sources/data-source.client';
import { DataSourceStore } from '../data-sources/data-source.store';
import { ROUTING_SETTINGS } from '../middleware-manager.settings';
import type { RoutingSettings } from '../middleware-manager.settings';
import { ResourceRepository } from '../resources/resource.repository';
import { TraefikObjectDto, TraefikStatusDto } from './dto/traefik-history.dto';
import { httpRouterName } from './traefik-config.builder';

type Json = Record<string, unknown>;
// Traefik's API pages its lists (100 by default): one large page is enough for a dashboard.
const PER_PAGE = '1000';
// Keel's own objects reach Traefik through its HTTP provider or the file it writes.
const KEEL_PROVIDERS = new Set(['http', 'file']);

function objects(body: unknown): TraefikObjectDto[] {
  if (!Array.isArray(body)) throw new Error('Traefik answered something other than a list');
  return (body as Json[])
    .filter((o) => o && typeof o.name === 'string')
    .map((o) => {
      const name = o.name as string;
      const strings = (v: unknown) =>
        Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
      const object: TraefikObjectDto = {
        name,
        provider: typeof o.provider === 'string' ? o.provider : splitProvider(name).provider,
        status: typeof o.status === 'string' ? o.status : 'unknown',
        errors: strings(o.error),
      };
      for (const field of ['type', 'rule', 'service'] as const)
        if (typeof o[field] === 'string') object[field] = o[field];
      if (Array.isArray(o.middlewares)) object.middlewares = strings(o.middlewares);
      return object;
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Traefik's own view of its routers, services and middlewares, read through the Traefik API data source. */
@Injectable()
export class TraefikStatusService {
  constructor(
    private readonly resources: ResourceRepository,
    private readonly store: DataSourceStore,
    @Inject(ROUTING_SETTINGS) private readonly settings: RoutingSettings,
  ) {}

  /** The active source when it is a configured Traefik API, else the first configured one. */
  private traefikSource() {
    const file = this.store.read();
    const names = [file.active_data_source, ...Object.keys(file.data_sources).sort()];
    const name = names.find((n) => file.data_sources[n]?.type === 'traefik' && this.store.isConfigured(n));
    return name ? { name, config: file.data_sources[name] } : undefined;
  }

  async status(): Promise<TraefikStatusDto> {
    const source = this.traefikSource();
    const empty = { routers: [], services: [], middlewares: [], keel_routers: [] };
    if (!source) return { configured: false, source: null, url: null, error: null, ...empty };
    const url = (path: string) => {
      const u = sourceUrl(source.config, path);
      u.searchParams.set('per_page', PER_PAGE);
      return u;
    };
    const base = { configured: true, source: source.name, url: source.config.url };
    let routers: TraefikObjectDto[], services: TraefikObjectDto[], middlewares: TraefikObjectDto[];
    try {
      [routers, services, middlewares] = (
        await Promise.all(
          ['/api/http/routers', '/api/http/services', '/api/http/middlewares'].map((path) =>
            fetchJson(source.config, this.settings.fetchTimeoutMs, url(path)),
          ),
        )
      ).map(objects);
    } catch (error) {
      return { ...base, error: `Traefik could not be read: ${describeFetchError(error)}`, ...empty };
    }
    const resources = await this.resources.active();
    const byBase = new Map<string, TraefikObjectDto>();
    for (const router of routers) {
      const { base: routerBase, provider } = splitProvider(router.name);
      if (KEEL_PROVIDERS.has(provider || router.provider)) byBase.set(routerBase, router);
    }
    const keel_routers = resources.map((resource) => {
      const name = httpRouterName(resource.id);
      const found = byBase.get(name);
      return {
        resource_id: resource.id,
        host: resource.host,
        router: name,
        loaded: !!found,
        healthy: !!found && found.status === 'enabled' && found.errors.length === 0,
        status: found?.status ?? null,
        errors: found?.errors ?? [],
      };
    });
    return { ...base, error: null, routers, services, middlewares, keel_routers };
  }
}
