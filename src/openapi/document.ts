import type { INestApplication } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { surfaceOfPath } from '../common/surface';
import { OPERATION_ID } from './operation.decorator';
import { OpenApiDocument, referenceDocument, referenceDocumentOf, referenceOperations } from './reference-document';

/** operationIds of the session-surface handlers this build implements. */
function implementedOperations(app: INestApplication): Set<string> {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner);
  const reflector = app.get(Reflector);
  const ids = new Set<string>();
  for (const wrapper of discovery.getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance) continue;
    const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const id = reflector.get<string | undefined>(OPERATION_ID, prototype[name] as () => unknown);
      if (id) ids.add(id);
    }
  }
  return ids;
}

/**
 * Swagger UI groups operations by tag and the reference tags almost none: each session operation is
 * tagged by the area its operationId names (`session.*` → session), with these exceptions.
 */
const SESSION_TAGS: Record<string, string> = {
  'session.messages': 'message',
  'session.message': 'message',
  'session.prompt': 'message',
  'session.prompt_async': 'message',
  'session.command': 'message',
  'session.shell': 'message',
  part: 'message',
  'global.event': 'event',
  'instance.dispose': 'instance',
  path: 'instance',
  vcs: 'instance',
  'app.agents': 'agent',
  'app.skills': 'skill',
  // opencode's own `/api/*` routes (its v2 API, which the 1.18 TUI reads).
  v2: 'v2',
  'app.log': 'log',
  auth: 'provider',
  lsp: 'status',
  formatter: 'status',
  mcp: 'status',
};

function sessionTag(operationId: string): string {
  const area = operationId.split('.')[0];
  return SESSION_TAGS[operationId] ?? SESSION_TAGS[area] ?? area;
}

/**
 * `/doc`: the session surface exactly as the reference OpenAPI documents describe it (the seed's,
 * and 1.18.33's for the newer clients' routes; only the operations implemented here, tagged by area
 * and secured by the server password), merged with the memory and routing surfaces generated from
 * their DTOs. Session `/api/*` routes and the routing manager's `/api/*` routes are both listed:
 * their prefixes never overlap (common/surface.ts).
 */
export function buildOpenApiDocument(app: INestApplication): OpenApiDocument {
  const reference = referenceDocument();
  const implemented = implementedOperations(app);
  const paths: OpenApiDocument['paths'] = {};
  for (const [id, { method, path, operation }] of referenceOperations()) {
    if (!implemented.has(id)) continue;
    (paths[path] ??= {})[method] = { ...operation, tags: [sessionTag(id)], security: [{ basic: [] }] };
  }
  const generated = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Keel')
      .setDescription('Session server (opencode 1.0.0 interface), memory API (supermemory v3/v4) and Traefik middleware manager')
      .setVersion(reference.info.version as string)
      // The two credentials of the server (README Configuration): the memory surface's API keys, the others' password.
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'A key of KEEL_API_KEYS (memory surface)' }, 'bearer')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A key of KEEL_API_KEYS (memory surface)' }, 'apiKey')
      .addBasicAuth({ type: 'http', scheme: 'basic', description: 'KEEL_SERVER_USERNAME / KEEL_SERVER_PASSWORD (session surface and routing manager)' }, 'basic')
      .build(),
  ) as unknown as OpenApiDocument;
  for (const [path, item] of Object.entries(generated.paths)) {
    // An operation without its own declaration needs what the authenticator asks of its surface.
    const security = surfaceOfPath(path) === 'memory' ? [{ bearer: [] }, { apiKey: [] }] : [{ basic: [] }];
    for (const operation of Object.values(item) as { security?: unknown[] }[]) operation.security ??= security;
    paths[path] = { ...paths[path], ...item };
  }
  return {
    openapi: '3.1.1',
    info: { ...reference.info, title: 'Keel', description: generated.info.description },
    paths,
    components: {
      ...(generated.components ?? {}),
      // The 1.18.33 extract renames the names it shares with the seed for another schema, so the two merge.
      schemas: { ...reference.components.schemas, ...referenceDocumentOf('opencode-1.18.33').components.schemas, ...(generated.components?.schemas ?? {}) },
    },
  };
}
