import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import standaloneCode from 'ajv/dist/standalone';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assetPath } from '../common/assets';
import { issue, ValidationIssue } from '../common/errors';

/** Traefik v3 file-provider JSON schema (draft-07), the "shape Traefik allows" for every object we emit. */
export const SCHEMA_ID = 'traefik-v3-file-provider';

/** Issues reported for one value: enough to fix a config, never the whole of a huge bad array. */
const MAX_ISSUES = 20;

/**
 * The validators compiled ahead of time by the build (scripts/bundle.js writes `standaloneValidators()`
 * beside the bundle): compiling the schema's definitions at run time took a fifth of a second of the
 * first configuration Keel generates, at every start. Where the file is not (tests run from src/), the
 * same code is compiled on first use.
 */
const PRECOMPILED = join(__dirname, '..', 'bundle', 'traefik-validators.js');

let precompiled: Record<string, ValidateFunction> | null | undefined;
let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

/** An ajv holding the schema, with the options both the build and the run-time fallback compile with. */
export function traefikAjv(options: { source: boolean }): Ajv {
  const instance = new Ajv({
    allErrors: true,
    strict: false,
    validateFormats: false,
    code: { source: options.source },
  });
  const schema = JSON.parse(
    readFileSync(assetPath('routing', 'traefik-v3-file-provider.schema.json'), 'utf8'),
  ) as {
    definitions: Record<string, unknown>;
  };
  instance.addSchema({ ...schema, $id: SCHEMA_ID });
  return instance;
}

/** The module the build ships: one validator per definition of the schema, exported under its name. */
export function standaloneValidators(): string {
  const instance = traefikAjv({ source: true });
  const schema = instance.getSchema(SCHEMA_ID)!.schema as { definitions: Record<string, unknown> };
  return standaloneCode(
    instance,
    Object.fromEntries(
      Object.keys(schema.definitions).map((name) => [name, `${SCHEMA_ID}#/definitions/${name}`]),
    ),
  );
}

function validator(definition: string): ValidateFunction {
  if (precompiled === undefined)
    precompiled = existsSync(PRECOMPILED) ? (require(PRECOMPILED) as Record<string, ValidateFunction>) : null;
  let validate =
    (precompiled && Object.hasOwn(precompiled, definition) ? precompiled[definition] : undefined) ??
    compiled.get(definition);
  if (!validate) {
    ajv ??= traefikAjv({ source: false });
    validate = ajv.getSchema(`${SCHEMA_ID}#/definitions/${definition}`);
    if (!validate) throw new Error(`No Traefik schema definition ${definition}`);
    compiled.set(definition, validate);
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
  const validate = validator(definition);
  if (validate(value)) return [];
  // oneOf/anyOf produce one error per branch; the leaf errors name the field.
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf');
  // Bounded: a million bad array items would otherwise be a million issues, spread into the caller's list.
  return (errors.length ? errors : (validate.errors ?? []))
    .slice(0, MAX_ISSUES)
    .map((e) => toIssue(prefix, e));
}
