import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { assetPath } from '../common/assets';
import { issue, ValidationIssue } from '../common/errors';

/** Traefik v3 file-provider JSON schema (draft-07), the "shape Traefik allows" for every object we emit. */
const SCHEMA_ID = 'traefik-v3-file-provider';

/** Issues reported for one value: enough to fix a config, never the whole of a huge bad array. */
const MAX_ISSUES = 20;

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function validator(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    if (!ajv) {
      ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
      const schema = JSON.parse(
        readFileSync(assetPath('middleware-manager', 'traefik-v3-file-provider.schema.json'), 'utf8'),
      ) as Record<string, unknown>;
      ajv.addSchema({ ...schema, $id: SCHEMA_ID });
    }
    validate = ajv.getSchema(`${SCHEMA_ID}${pointer}`);
    if (!validate) throw new Error(`No Traefik schema definition at ${pointer}`);
    compiled.set(pointer, validate);
  }
  return validate;
}

function toIssue(prefix: (string | number)[], error: ErrorObject): ValidationIssue {
  const path = [...prefix, ...error.instancePath.split('/').filter(Boolean)];
  const params = error.params as { additionalProperty?: string; missingProperty?: string };
  if (params.additionalProperty)
    return issue([...path, params.additionalProperty], 'is not a field Traefik knows', 'unrecognized_keys');
  if (params.missingProperty) return issue([...path, params.missingProperty], 'is required', 'required');
  return issue(path, error.message ?? 'is invalid', error.keyword);
}

/** Issues (empty when valid) of `value` against one schema definition, e.g. `forwardAuthMiddleware`. */
export function schemaIssues(
  definition: string,
  value: unknown,
  prefix: (string | number)[],
): ValidationIssue[] {
  const validate = validator(`#/definitions/${definition}`);
  if (validate(value)) return [];
  // oneOf/anyOf produce one error per branch; the leaf errors name the field.
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf');
  // Bounded: a million bad array items would otherwise be a million issues, spread into the caller's list.
  return (errors.length ? errors : (validate.errors ?? [])).slice(0, MAX_ISSUES).map((e) => toIssue(prefix, e));
}
