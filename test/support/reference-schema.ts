import Ajv2020 from 'ajv/dist/2020';
import { referenceDocument } from '../../src/openapi/reference-document';

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
