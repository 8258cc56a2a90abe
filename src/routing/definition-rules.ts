/**
 * The rules of a middleware or service definition that are not in Traefik's schema: the accepted
 * types, the fields Traefik needs although its schema leaves them optional, and where a service is
 * emitted. Dependency-free, so the server (definitions/definition-types.ts) and the console's editor
 * (console/src/routing/traefikValidation.ts, which imports this path) apply the very same rules.
 */

/** The 25 middleware types middleware-manager v3.0.3 accepts (`isValidMiddlewareType`). */
export const MIDDLEWARE_TYPES = [
  'basicAuth',
  'digestAuth',
  'forwardAuth',
  'ipWhiteList',
  'ipAllowList',
  'rateLimit',
  'headers',
  'stripPrefix',
  'stripPrefixRegex',
  'addPrefix',
  'redirectRegex',
  'redirectScheme',
  'replacePath',
  'replacePathRegex',
  'chain',
  'plugin',
  'buffering',
  'circuitBreaker',
  'compress',
  'contentType',
  'errors',
  'grpcWeb',
  'inFlightReq',
  'passTLSClientCert',
  'retry',
] as const;

export const SERVICE_TYPES = ['loadBalancer', 'weighted', 'mirroring', 'failover'] as const;

type Config = Record<string, unknown>;

/**
 * Fields Traefik needs although its schema leaves them optional (reference §3: marked required,
 * or functionally mandatory). Each entry: alternatives, one of which must be present.
 */
const REQUIRED_FIELDS: Record<'middlewares' | 'services', Record<string, string[][]>> = {
  middlewares: {
    forwardAuth: [['address']],
    basicAuth: [['users', 'usersFile']],
    digestAuth: [['users', 'usersFile']],
    ipAllowList: [['sourceRange']],
    ipWhiteList: [['sourceRange']],
    redirectRegex: [['regex'], ['replacement']],
    redirectScheme: [['scheme']],
    addPrefix: [['prefix']],
    stripPrefix: [['prefixes']],
    stripPrefixRegex: [['regex']],
    replacePath: [['path']],
    replacePathRegex: [['regex'], ['replacement']],
    chain: [['middlewares']],
    errors: [['status'], ['service'], ['query']],
    circuitBreaker: [['expression']],
    retry: [['attempts']],
    inFlightReq: [['amount']],
  },
  services: {
    loadBalancer: [['servers']],
    weighted: [['services']],
    mirroring: [['service']],
    failover: [['service'], ['fallback']],
  },
};

function isEmpty(value: unknown): boolean {
  return (
    value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)
  );
}

/** The required fields `config` lacks: the field to name and what to say. */
export function missingFields(
  kind: 'middlewares' | 'services',
  type: string,
  config: Config,
): { field: string; message: string }[] {
  return (REQUIRED_FIELDS[kind][type] ?? [])
    .filter((alternatives) => alternatives.every((field) => isEmpty(config[field])))
    .map((alternatives) => ({
      field: alternatives[0],
      message:
        alternatives.length > 1 ? `is required (or ${alternatives.slice(1).join(', ')})` : 'is required',
    }));
}

/** Where a service is emitted: a `loadBalancer` whose servers use `address` is a TCP service (v3 placement). */
export function serviceProtocol(type: string, config: Config): 'http' | 'tcp' {
  const servers = config.servers;
  if (type !== 'loadBalancer' || !Array.isArray(servers) || servers.length === 0) return 'http';
  const first = servers[0] as Config | undefined;
  return first && typeof first === 'object' && 'address' in first && !('url' in first) ? 'tcp' : 'http';
}

/** The schema definition a middleware's or service's config is checked against. */
export function schemaDefinition(kind: 'middlewares' | 'services', type: string, config: Config): string {
  if (kind === 'middlewares') return `${type}Middleware`;
  return `${serviceProtocol(type, config)}${type.charAt(0).toUpperCase()}${type.slice(1)}Service`;
}
