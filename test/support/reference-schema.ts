import Ajv2020 from 'ajv/dist/2020';
import { qualifiedSchema, referenceDocumentOf, referenceOperations, ReferenceSource } from '../../src/openapi/reference-document';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
for (const source of ['opencode', 'opencode-1.18.33'] as ReferenceSource[]) ajv.addSchema({ $id: source, components: referenceDocumentOf(source).components });

/**
 * Throws (failing the test) unless `value` matches the reference component schema `name`: the
 * seed's, or with `source` 'opencode-1.18.33' the newer clients' (src/openapi/opencode-openapi-1.18.33.json).
 */
export function expectReferenceSchema(value: unknown, name: string, source: ReferenceSource = 'opencode'): void {
  const validate = ajv.getSchema(`${source}#/components/schemas/${name}`);
  if (!validate) throw new Error(`no reference schema ${name} in ${source}`);
  if (!validate(value)) {
    throw new Error(`${name} does not match the reference schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 1000)}`);
  }
}

/** Throws (failing the test) unless `value` matches the reference's 200 response schema of `operationId` (either document). */
export function expectReferenceResponse(value: unknown, operationId: string): void {
  const entry = referenceOperations().get(operationId);
  if (!entry) throw new Error(`no reference operation ${operationId}`);
  const response = entry.operation.responses['200'] as
    { content?: Record<string, { schema: unknown }> } | undefined;
  const schema = response?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`reference operation ${operationId} has no JSON 200 response`);
  const validate = ajv.compile(qualifiedSchema(schema, entry.source));
  if (!validate(value)) {
    throw new Error(
      `${operationId} response does not match the reference schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 1000)}`,
    );
  }
}
