import { issue, ValidationIssue } from '../../common/errors';
import { isJsonObject } from '../../common/validation/request-fields';
import { MIDDLEWARE_TYPES, missingFields, schemaDefinition, SERVICE_TYPES } from '../definition-rules';
import { schemaIssues } from '../traefik-schema';

type Kind = 'middlewares' | 'services';
const TYPES: Record<Kind, readonly string[]> = { middlewares: MIDDLEWARE_TYPES, services: SERVICE_TYPES };

/** Everything wrong with a definition's type and config, each issue naming the field. */
function definitionIssues(kind: Kind, type: string, config: unknown): ValidationIssue[] {
  if (!TYPES[kind].includes(type))
    return [
      issue(
        ['type'],
        `Invalid ${kind === 'middlewares' ? 'middleware' : 'service'} type: ${type}`,
        'invalid_value',
      ),
    ];
  if (!isJsonObject(config)) return [issue(['config'], 'must be a JSON object', 'invalid_type')];
  if (kind === 'middlewares' && type === 'plugin' && Object.keys(config).length !== 1)
    return [issue(['config'], 'must name exactly one plugin: {"<pluginName>": {…}}', 'invalid_value')];
  const required = missingFields(kind, type, config).map(({ field, message }) =>
    issue(['config', field], message, 'required'),
  );
  return required.length ? required : schemaIssues(schemaDefinition(kind, type, config), config, ['config']);
}

export const middlewareIssues = (type: string, config: unknown) =>
  definitionIssues('middlewares', type, config);
export const serviceIssues = (type: string, config: unknown) => definitionIssues('services', type, config);
