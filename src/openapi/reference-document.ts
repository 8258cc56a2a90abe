import { readFileSync } from 'node:fs';
import { assetPath } from '../common/assets';

/** The reference OpenAPI of the session surface (opencode 1.0.223): the wire contract. */
export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown> };
  [key: string]: unknown;
}

export interface OpenApiParameter {
  in: 'query' | 'path' | 'header';
  name: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

export interface OpenApiOperation {
  operationId: string;
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, unknown>;
  [key: string]: unknown;
}

let cached: OpenApiDocument | undefined;

export function referenceDocument(): OpenApiDocument {
  cached ??= JSON.parse(readFileSync(assetPath('openapi', 'opencode-openapi-1.0.0.json'), 'utf8')) as OpenApiDocument;
  return cached;
}

let operations: Map<string, { method: string; path: string; operation: OpenApiOperation }> | undefined;

/** Operations by operationId, with their method and path. */
export function referenceOperations(): Map<string, { method: string; path: string; operation: OpenApiOperation }> {
  if (!operations) {
    operations = new Map();
    for (const [path, item] of Object.entries(referenceDocument().paths)) {
      for (const [method, operation] of Object.entries(item)) operations.set(operation.operationId, { method, path, operation });
    }
  }
  return operations;
}

/** The one 2xx status the reference declares for an operation (undefined for an operation it lacks). */
export function referenceSuccessStatus(operationId: string): number | undefined {
  const operation = referenceOperations().get(operationId)?.operation;
  const success = Object.keys(operation?.responses ?? {}).find((code) => /^2\d\d$/.test(code));
  return success === undefined ? undefined : Number(success);
}
