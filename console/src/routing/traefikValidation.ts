import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
// The same Traefik v3 file-provider schema the server validates with; this module is only
// imported by the lazily loaded editor, so the schema never weighs on the first page.
import schema from '../../../src/middleware-manager/traefik-v3-file-provider.schema.json';

export type Kind = 'middlewares' | 'services';
export interface Issue {
  path: string;
  message: string;
}

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
];
export const SERVICE_TYPES = ['loadBalancer', 'weighted', 'mirroring', 'failover'];

// Fields Traefik needs although its schema leaves them optional (as the server checks them).
const REQUIRED: Record<string, string[][]> = {
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
  'service:loadBalancer': [['servers']],
  'service:weighted': [['services']],
  'service:mirroring': [['service']],
  'service:failover': [['service'], ['fallback']],
};

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
ajv.addSchema({ ...(schema as object), $id: 'traefik' });
const compiled = new Map<string, ValidateFunction | undefined>();

function validator(definition: string): ValidateFunction | undefined {
  if (!compiled.has(definition))
    compiled.set(definition, ajv.getSchema(`traefik#/definitions/${definition}`));
  return compiled.get(definition);
}

function isEmpty(value: unknown): boolean {
  return (
    value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)
  );
}

function toIssue(error: ErrorObject): Issue {
  const path = ['config', ...error.instancePath.split('/').filter(Boolean)];
  const params = error.params as { additionalProperty?: string; missingProperty?: string };
  if (params.additionalProperty)
    return { path: [...path, params.additionalProperty].join('.'), message: 'is not a field Traefik knows' };
  if (params.missingProperty)
    return { path: [...path, params.missingProperty].join('.'), message: 'is required' };
  return { path: path.join('.'), message: error.message ?? 'is invalid' };
}

/** What the server would say about this config, checked in the browser as one types. */
export function configIssues(kind: Kind, type: string, config: unknown): Issue[] {
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    return [{ path: 'config', message: 'must be a JSON object' }];
  const body = config as Record<string, unknown>;
  if (kind === 'middlewares' && type === 'plugin' && Object.keys(body).length !== 1)
    return [{ path: 'config', message: 'must name exactly one plugin: {"<pluginName>": {…}}' }];
  const required = (REQUIRED[kind === 'services' ? `service:${type}` : type] ?? [])
    .filter((alternatives) => alternatives.every((field) => isEmpty(body[field])))
    .map((alternatives) => ({
      path: `config.${alternatives[0]}`,
      message:
        alternatives.length > 1 ? `is required (or ${alternatives.slice(1).join(', ')})` : 'is required',
    }));
  if (required.length) return required;
  let definition = `${type}Middleware`;
  if (kind === 'services') {
    const servers = body.servers;
    const first = Array.isArray(servers) ? (servers[0] as Record<string, unknown> | undefined) : undefined;
    const tcp =
      type === 'loadBalancer' &&
      !!first &&
      typeof first === 'object' &&
      'address' in first &&
      !('url' in first);
    definition = `${tcp ? 'tcp' : 'http'}${type.charAt(0).toUpperCase()}${type.slice(1)}Service`;
  }
  const validate = validator(definition);
  if (!validate || validate(body)) return [];
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf');
  return (errors.length ? errors : (validate.errors ?? [])).slice(0, 20).map(toIssue);
}
