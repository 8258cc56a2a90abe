import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { referenceOperations } from '../src/openapi/reference-document';
import { startKeel, TestKeel } from './support/keel';

type Operation = {
  operationId?: string;
  tags?: string[];
  security?: Record<string, unknown>[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown>; securitySchemes?: Record<string, unknown> } };

const WRITES = ['post', 'put', 'patch'];

function operations(doc: Document): { key: string; method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op })));
}

const hasSchema = (content?: Record<string, { schema?: unknown }>) => !!content && Object.values(content).some((media) => !!media.schema);

/** `METHOD /path/{param}` of every controller handler that reads a request body (@Body()). */
function bodyHandlers(keel: TestKeel): string[] {
  const app = keel.keel.app;
  const scanner = app.get(MetadataScanner);
  const out: string[] = [];
  for (const wrapper of app.get(DiscoveryService).getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance) continue;
    const prototype = Object.getPrototypeOf(instance) as Record<string, () => unknown>;
    const base = String(Reflect.getMetadata(PATH_METADATA, instance.constructor) ?? '');
    for (const name of scanner.getAllMethodNames(prototype)) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, instance.constructor, name) ?? {}) as Record<string, unknown>;
      if (!Object.keys(args).some((key) => key.startsWith('3:'))) continue; // RouteParamtypes.BODY
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, prototype[name]) as number];
      const path = `/${[base, String(Reflect.getMetadata(PATH_METADATA, prototype[name]) ?? '')].filter((p) => p && p !== '/').join('/')}`.replace(/\/+/g, '/').replace(/:(\w+)/g, '{$1}');
      out.push(`${method} ${path.length > 1 ? path.replace(/\/$/, '') : path}`);
    }
  }
  return out;
}

describe('/doc: every operation can be sent from Swagger UI and typed by a generator (issue 11)', () => {
  let keel: TestKeel;
  let doc: Document;

  beforeAll(async () => {
    keel = await startKeel();
    const response = await fetch(`${keel.url}/doc`);
    expect(response.status).toBe(200);
    doc = (await response.json()) as Document;
  });

  afterAll(() => keel.close());

  /** Keel's own writes that take nothing: signing out ends the session its cookie names. */
  const KEEL_BODILESS = new Set(['POST /keel/logout']);

  it('gives every write operation a request body schema, unless the reference documents it bodiless', () => {
    const reference = new Map([...referenceOperations().values()].map((r) => [`${r.method.toUpperCase()} ${r.path}`, r.operation]));
    const missing = operations(doc)
      .filter(({ key, method }) => WRITES.includes(method) && !(reference.has(key) && !reference.get(key)!.requestBody) && !KEEL_BODILESS.has(key))
      .filter(({ op }) => !hasSchema(op.requestBody?.content))
      .map(({ key }) => key);
    expect(missing).toEqual([]);
  });

  it('documents a request body for every handler that reads one (DELETE with a body included)', () => {
    const documented = new Map(operations(doc).map(({ key, op }) => [key, op]));
    const handlers = bodyHandlers(keel);
    expect(handlers).toEqual(expect.arrayContaining(['POST /v3/search', 'DELETE /v4/memories', 'PATCH /v3/settings']));
    const missing = handlers.filter((key) => documented.has(key) && !hasSchema(documented.get(key)!.requestBody?.content));
    expect(missing).toEqual([]);
    // Every handler is in the document at all (a path typo here would hide it from the check above).
    expect(handlers.filter((key) => !documented.has(key))).toEqual([]);
  });

  it('declares a success response with a schema for every operation (204 has no body)', () => {
    const missing = operations(doc)
      .map(({ key, op }) => {
        const success = Object.keys(op.responses ?? {}).filter((code) => /^2\d\d$/.test(code)).sort()[0];
        if (!success) return `${key}: no 2xx response`;
        if (success !== '204' && !hasSchema(op.responses![success].content)) return `${key}: ${success} without a schema`;
        return undefined;
      })
      .filter(Boolean);
    expect(missing).toEqual([]);
  });

  it('defines every security scheme an operation refers to, and secures every operation but the public share page', () => {
    const schemes = doc.components.securitySchemes ?? {};
    expect(Object.keys(schemes).sort()).toEqual(['apiKey', 'basic', 'bearer']);
    const undefinedSchemes = operations(doc).flatMap(({ key, op }) => (op.security ?? []).flatMap((requirement) => Object.keys(requirement).filter((name) => !schemes[name]).map((name) => `${key}: ${name}`)));
    expect(undefinedSchemes).toEqual([]);
    // The share page and its read-only data and events are public by design (docs/sessions.md "Sharing sessions").
    // The console's sign-in routes are how one gets a credential (docs/console.md "Signing in").
    expect(operations(doc).filter(({ op }) => !op.security?.length).map(({ key }) => key).sort()).toEqual(
      ['GET /share/{shareID}', 'GET /share/{shareID}/data', 'GET /share/{shareID}/event', 'GET /keel/auth', 'POST /keel/login', 'POST /keel/logout'].sort(),
    );
    expect(doc.paths['/v3/search'].post.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(doc.paths['/session'].post.security).toEqual([{ basic: [] }]);
  });

  it('tags every operation, session operations by area, with the reference operationIds unchanged', () => {
    expect(operations(doc).filter(({ op }) => !op.tags?.length).map(({ key }) => key)).toEqual([]);
    const tagOf = (path: string, method: string) => doc.paths[path][method].tags;
    expect(tagOf('/session', 'post')).toEqual(['session']);
    expect(tagOf('/session/{sessionID}/message', 'post')).toEqual(['message']);
    expect(tagOf('/session/{sessionID}/permissions/{permissionID}', 'post')).toEqual(['permission']);
    expect(tagOf('/config/providers', 'get')).toEqual(['config']);
    expect(tagOf('/find/file', 'get')).toEqual(['find']);
    expect(tagOf('/event', 'get')).toEqual(['event']);
    for (const [id, { method, path }] of referenceOperations()) {
      if (doc.paths[path]?.[method]) expect(doc.paths[path][method].operationId).toBe(id);
    }
  });

  it('resolves every $ref to a schema of the document', () => {
    const refs = new Set<string>();
    JSON.stringify(doc, (key, value: unknown) => {
      if (key === '$ref' && typeof value === 'string') refs.add(value);
      return value;
    });
    const dangling = [...refs].filter((ref) => !ref.startsWith('#/components/schemas/') || !doc.components.schemas[ref.slice('#/components/schemas/'.length)]);
    expect(dangling).toEqual([]);
  });
});
