import type { ErrorObject } from 'ajv';
// The same Traefik v3 file-provider schema the server validates with, compiled at build time; this
// module is only imported by the lazily loaded editor, so it never weighs on the first page.
import { validators } from 'virtual:traefik-validators';
// The server's own rules beyond the schema (types, fields Traefik needs, service placement).
import {
  MIDDLEWARE_TYPES,
  missingFields,
  schemaDefinition,
  SERVICE_TYPES,
} from '../../../src/routing/definition-rules';

export type Kind = 'middlewares' | 'services';
export interface Issue {
  path: string;
  message: string;
}

export { MIDDLEWARE_TYPES, SERVICE_TYPES };

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
  const required = missingFields(kind, type, body).map(({ field, message }) => ({
    path: `config.${field}`,
    message,
  }));
  if (required.length) return required;
  const definition = schemaDefinition(kind, type, body);
  const validate = Object.hasOwn(validators, definition) ? validators[definition] : undefined;
  if (!validate || validate(body)) return [];
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf');
  return (errors.length ? errors : (validate.errors ?? [])).slice(0, 20).map(toIssue);
}
