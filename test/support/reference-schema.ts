import Ajv2020 from 'ajv/dist/2020';
import { referenceDocument, referenceOperations } from '../../src/openapi/reference-document';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
ajv.addSchema({ $id: 'opencode', components: referenceDocument().components });

/** Throws (failing the test) unless `value` matches the reference component schema `name`. */
export function expectReferenceSchema(value: unknown, name: string): void {
  const validate = ajv.getSchema(`opencode#/components/schemas/${name}`);
  if (!validate) throw new Error(`no reference schema ${name}`);
  if (!validate(value)) {
    throw new Error(`${name} does not match the reference schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 1000)}`);
  }
}

/** Throws (failing the test) unless `value` matches the reference's 200 response schema of `operationId`. */
export function expectReferenceResponse(value: unknown, operationId: string): void {
  const entry = referenceOperations().get(operationId);
  if (!entry) throw new Error(`no reference operation ${operationId}`);
  const response = entry.operation.responses['200'] as
    { content?: Record<string, { schema: unknown }> } | undefined;
  const schema = response?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`reference operation ${operationId} has no JSON 200 response`);
  const rewritten = JSON.parse(
    JSON.stringify(schema).replace(/"#\/components\//g, '"opencode#/components/'),
  ) as object;
  const validate = ajv.compile(rewritten);
  if (!validate(value)) {
    throw new Error(
      `${operationId} response does not match the reference schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 1000)}`,
    );
  }
}
