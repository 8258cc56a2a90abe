import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { ValidationError, ValidationIssue } from '../common/errors';
import { OPERATION_ID } from './operation.decorator';
import { referenceDocument, referenceOperations } from './reference-document';

interface OperationValidators {
  body?: ValidateFunction;
  query?: ValidateFunction;
  path?: ValidateFunction;
}

const ZOD_CODES: Record<string, string> = {
  type: 'invalid_type',
  required: 'invalid_type',
  pattern: 'invalid_format',
  format: 'invalid_format',
  enum: 'invalid_value',
  const: 'invalid_value',
  additionalProperties: 'unrecognized_keys',
  minimum: 'too_small',
  maximum: 'too_big',
  minLength: 'too_small',
  maxLength: 'too_big',
  anyOf: 'invalid_union',
  oneOf: 'invalid_union',
};

/** Ajv errors as the reference's sanitised zod issues: `{code, path, message}`. */
export function toIssues(errors: ErrorObject[] | null | undefined, prefix: (string | number)[] = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors ?? []) {
    const path: (string | number)[] = [...prefix];
    for (const segment of error.instancePath.split('/').slice(1)) {
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      path.push(/^\d+$/.test(key) ? Number(key) : key);
    }
    if (error.keyword === 'required') path.push((error.params as { missingProperty: string }).missingProperty);
    const message =
      error.keyword === 'required' ? 'Required' : error.keyword === 'additionalProperties'
        ? `Unrecognized key: "${(error.params as { additionalProperty: string }).additionalProperty}"`
        : (error.message ?? 'Invalid input');
    issues.push({ code: ZOD_CODES[error.keyword] ?? 'custom', path, message });
  }
  // anyOf produces one error per branch plus the union error; keep them, most specific first.
  return issues;
}

/**
 * Ajv checks that numbers are finite (strictNumbers) but not what it coerced a query string to:
 * `?limit=1e309` becomes Infinity after the type check, so the coerced values are checked here.
 */
function nonFiniteIssues(coerced: Record<string, unknown>): ValidationIssue[] {
  return Object.entries(coerced)
    .filter(([, value]) => typeof value === 'number' && !Number.isFinite(value))
    .map(([name]) => ({ code: 'invalid_type', path: [name], message: 'must be a finite number' }));
}

function objectSchema(parameters: { name: string; required?: boolean; schema: unknown }[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
    required: parameters.filter((p) => p.required).map((p) => p.name),
  };
}

/**
 * Validates session-surface requests (body, query, path) against the reference OpenAPI, so the
 * contract and the checks are one document. Failures are 400 BadRequestError naming the field.
 * A global guard rather than an interceptor: it needs the handler (its operationId) and nothing of
 * the response, and an interceptor would wrap every request in an Observable pipeline.
 */
@Injectable()
export class ReferenceValidator implements CanActivate {
  // strictNumbers: `type: number` alone admits Infinity (a JSON body's 1e309 parses to it), which no
  // handler or database can use. Coerced query values are checked after (nonFiniteIssues).
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false, strictNumbers: true });
  private readonly ajvCoercing = new Ajv2020({ strict: false, coerceTypes: true, validateSchema: false, strictNumbers: true });
  private readonly validators = new Map<string, OperationValidators>();
  private readonly operations = referenceOperations();

  constructor(private readonly reflector: Reflector) {
    const components = { $id: 'opencode', components: referenceDocument().components };
    this.ajv.addSchema(components);
    this.ajvCoercing.addSchema(components);
  }

  canActivate(context: ExecutionContext): true {
    const operationId = this.reflector.get<string | undefined>(OPERATION_ID, context.getHandler());
    if (operationId) this.validate(operationId, context.switchToHttp().getRequest<Request>());
    return true;
  }

  validate(operationId: string, req: Request): void {
    const v = this.validatorsFor(operationId);
    const params = { ...req.params };
    if (v.path && !v.path(params)) throw new ValidationError(toIssues(v.path.errors), params);
    const query = { ...(req.query as Record<string, unknown>) };
    if (v.query && !v.query(query)) throw new ValidationError(toIssues(v.query.errors), query);
    const infinite = nonFiniteIssues(query);
    if (infinite.length) throw new ValidationError(infinite, { ...(req.query as Record<string, unknown>) });
    if (v.body) {
      // A missing body is validated as `{}`, so required members are still named.
      const body: unknown = req.body ?? {};
      if (!v.body(body)) throw new ValidationError(toIssues(v.body.errors), body);
    }
  }

  private validatorsFor(operationId: string): OperationValidators {
    let v = this.validators.get(operationId);
    if (v) return v;
    const entry = this.operations.get(operationId);
    if (!entry) throw new Error(`Unknown reference operation ${operationId}`);
    const rewrite = (schema: unknown): Record<string, unknown> =>
      JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"opencode#/components/')) as Record<string, unknown>;
    const parameters = entry.operation.parameters ?? [];
    const query = parameters.filter((p) => p.in === 'query');
    const path = parameters.filter((p) => p.in === 'path');
    const bodySchema = entry.operation.requestBody?.content['application/json']?.schema;
    v = {
      query: query.length ? this.ajvCoercing.compile(rewrite(objectSchema(query))) : undefined,
      path: path.length ? this.ajvCoercing.compile(rewrite(objectSchema(path))) : undefined,
      body: bodySchema ? this.ajv.compile(rewrite(bodySchema)) : undefined,
    };
    this.validators.set(operationId, v);
    return v;
  }
}
