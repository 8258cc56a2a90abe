import { readFileSync } from 'node:fs';
import { assetPath } from '../common/assets';

/**
 * The reference OpenAPI documents of the session surface: the seed's (opencode 1.0.223, the wire
 * contract) and the operations Keel takes from opencode 1.18.33 for newer clients
 * (scripts/reference-openapi.mjs extracts them from that server's own `/doc`).
 */
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
  style?: string;
  schema: Record<string, unknown>;
}

interface OpenApiOperation {
  operationId: string;
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, unknown>;
  [key: string]: unknown;
}

/** Which document an operation comes from; also the `$id` its component schemas are registered under. */
export type ReferenceSource = 'opencode' | 'opencode-1.18.33';

interface ReferenceOperation {
  method: string;
  path: string;
  operation: OpenApiOperation;
  source: ReferenceSource;
}

const documents = new Map<ReferenceSource, OpenApiDocument>();
const FILES: Record<ReferenceSource, string> = { opencode: 'opencode-openapi-1.0.0.json', 'opencode-1.18.33': 'opencode-openapi-1.18.33.json' };

export function referenceDocumentOf(source: ReferenceSource): OpenApiDocument {
  let document = documents.get(source);
  if (!document) {
    document = JSON.parse(readFileSync(assetPath('openapi', FILES[source]), 'utf8')) as OpenApiDocument;
    documents.set(source, document);
  }
  return document;
}

/** The seed's document (opencode 1.0.223): the wire contract, and the `Config` schema config files are checked against. */
export function referenceDocument(): OpenApiDocument {
  return referenceDocumentOf('opencode');
}

let operations: Map<string, ReferenceOperation> | undefined;

/**
 * Operations by operationId, with their method, path and document. An operation of 1.18.33 replaces
 * the seed's one of the same id (`vcs.get`, which gained `default_branch`).
 */
export function referenceOperations(): Map<string, ReferenceOperation> {
  if (!operations) {
    operations = new Map();
    for (const source of ['opencode', 'opencode-1.18.33'] as const) {
      for (const [path, item] of Object.entries(referenceDocumentOf(source).paths)) {
        for (const [method, operation] of Object.entries(item)) operations.set(operation.operationId, { method, path, operation, source });
      }
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

/** A schema of `source` with its `#/components/…` references pointing into that document's registered `$id`. */
export function qualifiedSchema(schema: unknown, source: ReferenceSource): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, `"${source}#/components/`)) as Record<string, unknown>;
}
