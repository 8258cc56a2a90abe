/**
 * Query keys of the routing pages. Every one starts with `routingKeys.all`, so one invalidation (a change
 * made here, or announced on the event stream) refreshes them all.
 */
export const routingKeys = {
  all: ['routing'] as const,
  resources: ['routing', 'resources'] as const,
  recentResources: ['routing', 'resources', 'recent'] as const,
  resource: (id: string) => ['routing', 'resources', id] as const,
  middlewares: ['routing', 'middlewares'] as const,
  services: ['routing', 'services'] as const,
  definition: (kind: 'middlewares' | 'services', id: string) => ['routing', kind, id] as const,
  dataSources: ['routing', 'datasources'] as const,
  activeDataSource: ['routing', 'datasources', 'active'] as const,
  traefikConfig: ['routing', 'traefik-config'] as const,
  traefikHistory: ['routing', 'traefik-history'] as const,
  traefikGeneration: (id: number | null) => ['routing', 'traefik-history', id] as const,
  traefikStatus: ['routing', 'traefik-status'] as const,
  plugins: ['routing', 'plugins'] as const,
  pluginConfigPath: ['routing', 'plugins', 'configpath'] as const,
};
