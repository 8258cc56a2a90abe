import { issue, ValidationIssue } from '../common/errors';
import { schemaIssues } from './traefik-schema';

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
const REQUIRED_MIDDLEWARE_FIELDS: Record<string, string[][]> = {
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
};

const REQUIRED_SERVICE_FIELDS: Record<string, string[][]> = {
  loadBalancer: [['servers']],
  weighted: [['services']],
  mirroring: [['service']],
  failover: [['service'], ['fallback']],
};

function isEmpty(value: unknown): boolean {
  return (
    value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)
  );
}

function requiredIssues(config: Config, required: string[][] | undefined): ValidationIssue[] {
  return (required ?? [])
    .filter((alternatives) => alternatives.every((field) => isEmpty(config[field])))
    .map((alternatives) =>
      issue(
        ['config', alternatives[0]],
        alternatives.length > 1 ? `is required (or ${alternatives.slice(1).join(', ')})` : 'is required',
        'required',
      ),
    );
}

/** Where a service is emitted: a `loadBalancer` whose servers use `address` is a TCP service (v3 placement). */
export function serviceProtocol(type: string, config: Config): 'http' | 'tcp' {
  const servers = config.servers;
  if (type !== 'loadBalancer' || !Array.isArray(servers) || servers.length === 0) return 'http';
  const first = servers[0] as Config | undefined;
  return first && typeof first === 'object' && 'address' in first && !('url' in first) ? 'tcp' : 'http';
}

function capitalized(type: string): string {
  return type.charAt(0).toUpperCase() + type.slice(1);
}

function objectIssue(config: unknown): ValidationIssue[] {
  return config !== null && typeof config === 'object' && !Array.isArray(config)
    ? []
    : [issue(['config'], 'must be a JSON object', 'invalid_type')];
}

/** Everything wrong with a middleware's type and config, each issue naming the field. */
export function middlewareIssues(type: string, config: unknown): ValidationIssue[] {
  if (!(MIDDLEWARE_TYPES as readonly string[]).includes(type))
    return [issue(['type'], `Invalid middleware type: ${type}`, 'invalid_value')];
  const shape = objectIssue(config);
  if (shape.length) return shape;
  const body = config as Config;
  if (type === 'plugin') {
    const names = Object.keys(body);
    if (names.length !== 1)
      return [issue(['config'], 'must name exactly one plugin: {"<pluginName>": {…}}', 'invalid_value')];
  }
  const required = requiredIssues(body, REQUIRED_MIDDLEWARE_FIELDS[type]);
  return required.length ? required : schemaIssues(`${type}Middleware`, body, ['config']);
}

/** Everything wrong with a service's type and config, each issue naming the field. */
export function serviceIssues(type: string, config: unknown): ValidationIssue[] {
  if (!(SERVICE_TYPES as readonly string[]).includes(type))
    return [issue(['type'], `Invalid service type: ${type}`, 'invalid_value')];
  const shape = objectIssue(config);
  if (shape.length) return shape;
  const body = config as Config;
  const required = requiredIssues(body, REQUIRED_SERVICE_FIELDS[type]);
  if (required.length) return required;
  const protocol = serviceProtocol(type, body);
  return schemaIssues(`${protocol}${capitalized(type)}Service`, body, ['config']);
}
