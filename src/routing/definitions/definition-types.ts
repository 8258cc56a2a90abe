import { issue, ValidationIssue } from '../../common/errors';
import { MIDDLEWARE_TYPES, missingFields, schemaDefinition, SERVICE_TYPES } from '../definition-rules';
import { schemaIssues } from '../traefik-schema';

export { serviceProtocol } from '../definition-rules';

type Config = Record<string, unknown>;

function requiredIssues(kind: 'middlewares' | 'services', type: string, config: Config): ValidationIssue[] {
  return missingFields(kind, type, config).map(({ field, message }) =>
    issue(['config', field], message, 'required'),
  );
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
  const required = requiredIssues('middlewares', type, body);
  return required.length
    ? required
    : schemaIssues(schemaDefinition('middlewares', type, body), body, ['config']);
}

/** Everything wrong with a service's type and config, each issue naming the field. */
export function serviceIssues(type: string, config: unknown): ValidationIssue[] {
  if (!(SERVICE_TYPES as readonly string[]).includes(type))
    return [issue(['type'], `Invalid service type: ${type}`, 'invalid_value')];
  const shape = objectIssue(config);
  if (shape.length) return shape;
  const body = config as Config;
  const required = requiredIssues('services', type, body);
  return required.length
    ? required
    : schemaIssues(schemaDefinition('services', type, body), body, ['config']);
}
