import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { referenceDocument } from '../openapi/reference-document';
import type { ConfigIssue } from './config-errors';

/**
 * What later opencode versions added to `Config` that Keel reads, with their schemas from opencode
 * 1.18.33's document: `skills.paths` (folders searched for `SKILL.md`) and `skills.urls`.
 */
const NEWER_CONFIG_KEYS: Record<string, unknown> = {
  skills: {
    type: 'object',
    properties: { paths: { type: 'array', items: { type: 'string' } }, urls: { type: 'array', items: { type: 'string' } } },
    additionalProperties: false,
  },
};

/** The reference components with `NEWER_CONFIG_KEYS` added to `Config`. */
function configComponents(): Record<string, unknown> {
  const { components } = referenceDocument();
  const config = components.schemas.Config as { properties: Record<string, unknown> };
  return { ...components, schemas: { ...components.schemas, Config: { ...config, properties: { ...config.properties, ...NEWER_CONFIG_KEYS } } } };
}

/**
 * Validators built from the reference OpenAPI's own component schemas (`Config`, `AgentConfig`,
 * the `command` entry), so the strictness of the config is exactly the reference's.
 */
class ReferenceConfigSchema {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor() {
    this.ajv.addSchema({ $id: 'opencode', components: configComponents() });
  }

  /** Issues of `value` against `#/components/schemas/<name>` (with an optional sub-pointer), none when valid. */
  check(value: unknown, name: string, pointer = ''): ConfigIssue[] {
    const ref = `opencode#/components/schemas/${name}${pointer}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate(value) ? [] : issuesOf(validate.errors);
  }

  /** Default values the reference schema declares for `keybinds`. */
  keybindDefaults(): Record<string, string> {
    const schema = referenceDocument().components.schemas.KeybindsConfig as { properties?: Record<string, { default?: unknown }> };
    const defaults: Record<string, string> = {};
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      if (typeof property.default === 'string') defaults[key] = property.default;
    }
    return defaults;
  }
}

/** Ajv errors as key paths: an unknown key is named by its own path, not its parent's. */
function issuesOf(errors: ErrorObject[] | null | undefined): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const error of errors ?? []) {
    const path: (string | number)[] = error.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    let message = error.message ?? 'invalid';
    if (error.keyword === 'additionalProperties') {
      path.push((error.params as { additionalProperty: string }).additionalProperty);
      message = 'unknown key';
    } else if (error.keyword === 'required') {
      path.push((error.params as { missingProperty: string }).missingProperty);
      message = 'required';
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    // anyOf adds one error per branch; a leaf error is more useful than the union summary.
    if (error.keyword === 'anyOf' && issues.length > 0) continue;
    issues.push({ path, message });
  }
  // Unknown keys first: they are the commonest mistake and the most precise message.
  return issues.sort((a, b) => Number(b.message === 'unknown key') - Number(a.message === 'unknown key'));
}

export const referenceConfigSchema = new ReferenceConfigSchema();
