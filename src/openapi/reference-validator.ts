import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { ValidationError, ValidationIssue } from '../common/errors';
import { OPERATION_ID } from './operation.decorator';
import { OpenApiParameter, qualifiedSchema, referenceDocumentOf, referenceOperations, ReferenceSource } from './reference-document';

interface OperationValidators {
  /** Query parameters sent as `name[key]=…`. */
  deepObjects: OpenApiParameter[];
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
function toIssues(errors: ErrorObject[] | null | undefined, prefix: (string | number)[] = []): ValidationIssue[] {
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

/**
 * The query as the operation's parameters name it: a `style: deepObject` parameter (1.18's
 * `location`) is sent as `location[directory]=…`, which the query parser leaves as a flat key.
 */
function queryValues(query: Record<string, unknown>, parameters: OpenApiParameter[]): Record<string, unknown> {
  const values = { ...query };
  for (const parameter of parameters) {
    if (parameter.style !== 'deepObject') continue;
    const prefix = `${parameter.name}[`;
    const members = Object.keys(values).filter((key) => key.startsWith(prefix) && key.endsWith(']'));
    if (members.length === 0) continue;
    const object: Record<string, unknown> = {};
    for (const key of members) {
      object[key.slice(prefix.length, -1)] = values[key];
      delete values[key];
    }
    values[parameter.name] = object;
  }
  return values;
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
    for (const source of ['opencode', 'opencode-1.18.33'] as ReferenceSource[]) {
      const components = { $id: source, components: referenceDocumentOf(source).components };
      this.ajv.addSchema(components);
      this.ajvCoercing.addSchema(components);
    }
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
    const query = queryValues(req.query, v.deepObjects);
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
    const rewrite = (schema: unknown): Record<string, unknown> => qualifiedSchema(schema, entry.source);
    const parameters = entry.operation.parameters ?? [];
    const query = parameters.filter((p) => p.in === 'query');
    const path = parameters.filter((p) => p.in === 'path');
    const bodySchema = entry.operation.requestBody?.content['application/json']?.schema;
    v = {
      deepObjects: query.filter((p) => p.style === 'deepObject'),
      query: query.length ? this.ajvCoercing.compile(rewrite(objectSchema(query))) : undefined,
      path: path.length ? this.ajvCoercing.compile(rewrite(objectSchema(path))) : undefined,
      body: bodySchema ? this.ajv.compile(rewrite(bodySchema)) : undefined,
    };
    this.validators.set(operationId, v);
    return v;
  }
}
