import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import Supermemory from 'supermemory';
import { DataSource } from 'typeorm';
import { setEnv } from './support/env';
import { routingApi } from './support/fake-routing-upstreams';
import { freshDatabase, startKeel, tempDir, testDatabaseServer, TestKeel } from './support/keel';
import { memoryClient, startEmbeddingServer, waitForDocument } from './support/memory-fixtures';

/**
 * Upgrades keep data: a database written by release 0 (commit 3b3a98e) through its public API,
 * made by test/fixtures/release-0/generate.mjs, is opened by today's code, which migrates it at start;
 * everything release 0 answered (recorded in expected.json) is still readable and the same, and new
 * writes work on every surface. Extra fields in today's answers are fine (toMatchObject), so later
 * migrations that add columns keep this test passing.
 */
const engine = testDatabaseServer ? 'postgres' : 'sqlite';
const fixture = join(__dirname, 'fixtures', 'release-0', engine);
const expected = JSON.parse(readFileSync(join(fixture, 'expected.json'), 'utf8'));
const API_KEY = 'upgrade-key';

/** Share urls carry the host the generator's server ran on; what must survive is the share id. */
function normalized(value: any): any {
  if (typeof value === 'string') {
    const share = /^https?:\/\/[^/]+\/share\/([A-Za-z0-9_-]+)$/.exec(value);
    return share ? expect.stringMatching(new RegExp(`/share/${share[1]}$`)) : value;
  }
  if (Array.isArray(value)) return value.map(normalized);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalized(v)]));
  return value;
}

const byId = <T extends { id: string }>(list: T[]): T[] => [...list].sort((a, b) => a.id.localeCompare(b.id));

/** Loads a plain-SQL `pg_dump --inserts` file: psql's meta-commands (`\restrict`) are psql's, not SQL. */
async function loadDump(url: string, file: string): Promise<void> {
  const lines = readFileSync(file, 'utf8').split('\n');
  const meta = lines.filter((line) => line.startsWith('\\'));
  const unknown = meta.filter((line) => !/^\\(un)?restrict\b/.test(line));
  if (unknown.length) throw new Error(`the dump needs psql: ${unknown.join(', ')}`);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(lines.filter((line) => !line.startsWith('\\')).join('\n'));
  } finally {
    await client.end();
  }
}

describe(`upgrade: a ${engine} database written by release 0 (${String(expected.generated.commit).slice(0, 7)}) opened by today's code`, () => {
  let keel: TestKeel;
  let embeddings: Awaited<ReturnType<typeof startEmbeddingServer>>;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let dataDir: string;
  let projectDir: string;
  let sessions: ReturnType<typeof createOpencodeClient>;
  let memory: Supermemory;
  let routing: ReturnType<typeof routingApi>;

  /** Plain HTTP for what the SDKs do not cover (Keel additions, `/v4/memories/list`). */
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${keel.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      text,
      body: (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined,
    };
  };
  const memoryCall = (method: string, path: string, body?: unknown) =>
    call(method, path, body, { 'x-api-key': API_KEY });

  beforeAll(async () => {
    // The operator's Traefik static file stays where the stored Plugin Hub setting points.
    const staticFile: string = expected.routing.plugins.staticConfigFile;
    mkdirSync(dirname(staticFile), { recursive: true });
    writeFileSync(staticFile, readFileSync(join(fixture, 'traefik.yml')));

    dataDir = tempDir('keel-upgrade-data-');
    cpSync(join(fixture, 'data'), dataDir, { recursive: true });
    database = await freshDatabase();
    if (database.url) await loadDump(database.url, join(fixture, 'keel.sql'));
    projectDir = tempDir('keel-upgrade-project-');
    embeddings = await startEmbeddingServer();
    // The ingestion and routing settings are read from the process environment when the app is built.
    const restoreEnv = setEnv({
      // The same deterministic embeddings the fixture's vectors came from.
      KEEL_EMBEDDING_URL: embeddings.url,
      KEEL_EMBEDDING_MODEL: 'fixture-embedding',
      // The receiver the outbox rows were queued for (never reachable): they stay queued.
      KEEL_INGEST_WEBHOOKS: expected.memory.webhookUrl,
      KEEL_INGEST_WEBHOOK_ATTEMPTS: '1000',
      KEEL_INGEST_WEBHOOK_BACKOFF_MS: '60000',
      KEEL_INGEST_WEBHOOK_TIMEOUT_MS: '2000',
      KEEL_DREAM_DELAY_MS: '200',
      KEEL_MM_CHECK_INTERVAL_SECONDS: '0',
    });
    try {
      keel = await startKeel({
        reuse: {
          env: {
            KEEL_DATA_DIR: dataDir,
            KEEL_PORT: '0',
            KEEL_HOST: '127.0.0.1',
            KEEL_LOG_LEVEL: process.env.KEEL_TEST_LOG_LEVEL ?? 'silent',
            KEEL_ALLOWED_DIRECTORIES: `${tmpdir()},${dirname(staticFile)}`,
            KEEL_SHUTDOWN_GRACE_MS: '1000',
            KEEL_API_KEYS: API_KEY,
            ...(database.url ? { DATABASE_URL: database.url } : {}),
          },
        },
      });
    } finally {
      restoreEnv();
    }
    sessions = createOpencodeClient({ baseUrl: keel.url, directory: projectDir });
    memory = memoryClient(keel.url, API_KEY);
    routing = routingApi(keel.url);
  });

  afterAll(async () => {
    await keel?.close();
    await embeddings?.close();
    await database?.drop();
    for (const dir of [dataDir, projectDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts on the old database with every migration of today applied', async () => {
    const db = keel.keel.app.get(DataSource);
    const table = db.options.migrationsTableName ?? 'migrations';
    const applied = (await db.query<{ name: string }[]>(`SELECT name FROM ${table}`)).map((r) => r.name);
    // As TypeORM names them: a hand-written migration may leave out its `name`.
    const known = db.migrations.map((m) => m.name ?? m.constructor.name);
    expect(known.length).toBeGreaterThan(0);
    expect(applied).toEqual(expect.arrayContaining(known));
    expect((await call('GET', '/global/health')).status).toBe(200);
    expect((await call('GET', '/health')).status).toBe(200);
  });

  describe('session surface', () => {
    it('lists the sessions, parent links included', async () => {
      const { data } = await sessions.session.list();
      for (const session of expected.sessions.list) {
        expect(data?.find((s) => s.id === session.id)).toMatchObject(normalized(session));
      }
    });

    it('reads each session with its messages and parts, its todo list and its children', async () => {
      for (const [sessionID, recorded] of Object.entries<any>(expected.sessions.byId)) {
        expect((await sessions.session.get({ sessionID })).data).toMatchObject(normalized(recorded.session));
        const messages = (await sessions.session.messages({ sessionID })).data;
        expect(messages).toMatchObject(normalized(recorded.messages));
        expect((await sessions.session.todo({ sessionID })).data).toEqual(recorded.todo);
        expect((await sessions.session.children({ sessionID })).data).toMatchObject(
          normalized(recorded.children),
        );
      }
      const main = (await sessions.session.messages({ sessionID: expected.sessions.main })).data!;
      const parts = main.flatMap((m) => m.parts);
      expect(parts.map((p) => p.type)).toEqual(
        expect.arrayContaining(['text', 'reasoning', 'tool', 'step-start', 'step-finish']),
      );
      expect((await sessions.session.todo({ sessionID: expected.sessions.main })).data).toHaveLength(3);
    });

    it('serves the share page and its data', async () => {
      const { shareID, data } = expected.share;
      const page = await fetch(`${keel.url}/share/${shareID}`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain(data.session.title);
      expect(html).toContain('The plan is written down as a todo list.');
      const shared = await call('GET', `/share/${shareID}/data`);
      expect(shared.status).toBe(200);
      expect(shared.body).toMatchObject(normalized(data));
      expect(shared.body.subtasks.map((s: any) => s.session.id)).toEqual([expected.sessions.child]);
    });
  });

  describe('memory surface', () => {
    it('reads every document, done, with its chunks', async () => {
      for (const [id, recorded] of Object.entries<any>(expected.memory.documents)) {
        const document: any = await memory.documents.get(id);
        const { memories: recordedMemories, ...rest } = recorded.document;
        expect(document).toMatchObject(rest);
        expect(document.status).toBe('done');
        expect(byId(document.memories ?? [])).toMatchObject(byId(recordedMemories ?? []));
        const chunks = await memoryCall('GET', `/v3/documents/${id}/chunks`);
        expect(chunks.status).toBe(200);
        expect(chunks.body).toMatchObject(recorded.chunks);
        expect(chunks.body.chunks.length).toBeGreaterThan(0);
      }
      expect(((await memory.documents.get('release-notes-0')) as any).id).toBe(
        expected.memory.documentIds.notes,
      );
      const list = await memoryCall('POST', '/v3/documents/list', {
        limit: 50,
        sort: 'createdAt',
        order: 'asc',
      });
      expect(list.body.memories).toMatchObject(expected.memory.list.memories);
    });

    it('finds documents and memories with both searches, by word and by the stored vectors', async () => {
      // Scores and the tail of a ranking may change with later code; the best hit of each search must stay.
      const hits = (path: string, answer: any): string[] =>
        (answer.results ?? [])
          .filter((r: any) => (path === '/v3/search' ? r.score : r.similarity) > 0)
          .map((r: any) => (path === '/v3/search' ? r.documentId : (r.documents?.[0]?.id ?? r.id)));
      for (const search of expected.memory.searches) {
        const answer = await memoryCall('POST', search.path, search.body);
        expect(answer.status).toBe(200);
        const [best] = hits(search.path, search.answer);
        expect({ search: search.body, hits: hits(search.path, answer.body) }).toEqual({
          search: search.body,
          hits: expect.arrayContaining([best]),
        });
      }
      // "automobile" is in no text: the "car" chunk is found by its stored vector alone.
      const bySynonym = await memory.search.documents({
        q: 'automobile',
        containerTags: ['fixture-notes'],
        chunkThreshold: 0.1,
      });
      expect(bySynonym.results.map((r) => r.documentId)).toEqual([expected.memory.documentIds.notes]);
      const v4 = await memory.search.memories({
        q: 'automobile',
        containerTag: 'fixture-notes',
        searchMode: 'documents',
        threshold: 0.1,
      } as never);
      expect(v4.results.map((r: any) => r.documents?.[0]?.id)).toEqual([expected.memory.documentIds.notes]);
    });

    it('keeps memories with their versions, forgotten ones, and the profiles', async () => {
      for (const [tag, recorded] of Object.entries<any>(expected.memory.memories.lists)) {
        const list = await memoryCall('POST', '/v4/memories/list', { containerTags: [tag], limit: 100 });
        expect(list.status).toBe(200);
        expect(byId(list.body.memoryEntries)).toMatchObject(byId(recorded.memoryEntries));
      }
      const entries = (
        await memoryCall('POST', '/v4/memories/list', { containerTags: ['fixture-user'], limit: 100 })
      ).body.memoryEntries;
      const [, reviewed, forgotten] = expected.memory.memories.createdIds;
      expect(entries.find((m: any) => m.id === expected.memory.memories.updated.id)).toMatchObject({
        version: 2,
        parentMemoryId: reviewed,
      });
      expect(entries.find((m: any) => m.id === forgotten)).toMatchObject({ isForgotten: true });
      for (const [containerTag, recorded] of Object.entries<any>(expected.memory.profiles)) {
        const { profile } = await memory.profile({ containerTag });
        expect([...profile.static].sort()).toEqual([...recorded.profile.static].sort());
        expect([...profile.dynamic].sort()).toEqual([...recorded.profile.dynamic].sort());
      }
    });

    it('keeps the settings and the webhook outbox', async () => {
      expect(await memory.settings.get()).toMatchObject(expected.memory.settings);
      const outbox = await memoryCall('GET', '/v3/webhooks/deliveries');
      expect(outbox.status).toBe(200);
      const pick = ({ id, receiver, type, documentId, status, createdAt }: any) => ({
        id,
        receiver,
        type,
        documentId,
        status,
        createdAt,
      });
      expect(byId(outbox.body.deliveries.map(pick))).toEqual(
        byId(expected.memory.deliveries.deliveries.map(pick)),
      );
    });
  });

  describe('routing manager', () => {
    it('keeps middlewares, services, resources with their links, and data sources', async () => {
      const middlewares = (await routing('GET', '/api/middlewares')).body;
      for (const m of expected.routing.middlewares)
        expect(middlewares.find((x: any) => x.id === m.id)).toEqual(m);
      const services = (await routing('GET', '/api/services')).body;
      for (const s of expected.routing.services) expect(services.find((x: any) => x.id === s.id)).toEqual(s);
      const resources = (await routing('GET', '/api/resources?status=all')).body;
      for (const r of expected.routing.resources)
        expect(resources.find((x: any) => x.id === r.id)).toMatchObject(r);
      for (const [id, recorded] of Object.entries<any>(expected.routing.resourceDetails)) {
        const { __service, ...resource } = recorded;
        expect(await routing('GET', `/api/resources/${id}`)).toMatchObject({ status: 200, body: resource });
        const service = await routing('GET', `/api/resources/${id}/service`);
        if (__service) expect(service).toEqual({ status: 200, body: __service });
        else expect(service.status).toBe(404);
      }
      expect((await routing('GET', '/api/resources/fixture-retired')).body.status).toBe('disabled');
      expect((await routing('GET', '/api/datasource')).body).toMatchObject(expected.routing.datasources);
      expect((await routing('GET', '/api/datasource/active')).body.name).toBe(
        expected.routing.activeDatasource,
      );
    });

    it('generates the same Traefik configuration', async () => {
      expect((await routing('GET', '/api/traefik-config')).body).toMatchObject(
        expected.routing.traefikConfig,
      );
      expect((await routing('GET', '/api/v1/traefik-config')).body).toMatchObject(
        expected.routing.traefikConfig,
      );
    });

    it('keeps the Plugin Hub settings', async () => {
      expect((await routing('GET', '/api/plugins/configpath')).body).toEqual(
        expected.routing.plugins.configpath,
      );
      const plugins = (await routing('GET', '/api/plugins')).body;
      const installed = (plugins.plugins ?? plugins).filter((p: any) => p.isInstalled);
      expect(installed).toMatchObject(expected.routing.plugins.declared);
    });
  });

  describe('new writes on the upgraded database', () => {
    it('session surface: a new session, a shell run in an old session, a renamed old session', async () => {
      const created = (await sessions.session.create({ title: 'After the upgrade' })).data!;
      expect(created.id).toMatch(/^ses_/);
      await sessions.session.shell({ sessionID: created.id, agent: 'build', command: 'echo upgraded' });
      await sessions.session.shell({
        sessionID: expected.sessions.main,
        agent: 'build',
        command: 'echo still here',
      });
      const parts = (await sessions.session.messages({ sessionID: expected.sessions.main })).data!.flatMap(
        (m) => m.parts,
      );
      expect(
        parts
          .filter((p: any) => p.type === 'tool' && p.state.status === 'completed')
          .map((p: any) => p.state.output),
      ).toEqual(expect.arrayContaining([expect.stringContaining('still here')]));
      expect(parts.length).toBeGreaterThan(
        expected.sessions.byId[expected.sessions.main].messages.flatMap((m: any) => m.parts).length,
      );
      await sessions.session.update({
        sessionID: expected.sessions.other,
        title: 'Renamed after the upgrade',
      });
      expect((await sessions.session.get({ sessionID: expected.sessions.other })).data?.title).toBe(
        'Renamed after the upgrade',
      );
      const ids = (await sessions.session.list()).data!.map((s) => s.id);
      expect(ids).toEqual(
        expect.arrayContaining([created.id, ...expected.sessions.list.map((s: any) => s.id)]),
      );
    });

    it('memory surface: a document processed to done with a vector, a memory, an appended customId, settings', async () => {
      const { id } = await memory.add({
        content: 'After the upgrade the zeppelin hangar opened. Its auto shuttle is scarlet.',
        containerTag: 'fixture-notes',
      });
      expect(await waitForDocument(memory, id)).toMatchObject({ status: 'done' });
      const found = await memory.search.documents({ q: 'zeppelin', containerTags: ['fixture-notes'] });
      expect(found.results[0]?.documentId).toBe(id);
      const bySynonym = await memory.search.documents({
        q: 'automobile',
        containerTags: ['fixture-notes'],
        chunkThreshold: 0.1,
      });
      expect(bySynonym.results.map((r) => r.documentId)).toEqual(
        expect.arrayContaining([id, expected.memory.documentIds.notes]),
      );
      const appended = await memory.add({
        content: 'The archive moved to the north wing.',
        customId: 'release-notes-0',
        containerTag: 'fixture-notes',
      });
      expect(appended.id).toBe(expected.memory.documentIds.notes);
      expect(await waitForDocument(memory, appended.id)).toMatchObject({
        status: 'done',
        content: expect.stringContaining('north wing'),
      });
      const created = await memoryCall('POST', '/v4/memories', {
        containerTag: 'fixture-user',
        memories: [{ content: 'Upgrades keep the data.' }],
      });
      expect(created.status).toBe(201);
      const updated = await memory.settings.update({ chunkSize: 900 });
      expect(updated.updated).toMatchObject({ chunkSize: 900 });
      expect(await memory.settings.get()).toMatchObject({ ...expected.memory.settings, chunkSize: 900 });
    });

    it('routing manager: a new middleware attached to an old resource appears in the Traefik configuration', async () => {
      const created = await routing('POST', '/api/middlewares', {
        name: 'after-upgrade',
        type: 'headers',
        config: { customResponseHeaders: { 'X-Upgraded': 'yes' } },
      });
      expect(created.status).toBe(201);
      const id: string = created.body.id;
      expect(
        (
          await routing('POST', '/api/resources/fixture-api/middlewares', {
            middleware_id: id,
            priority: 120,
          })
        ).status,
      ).toBe(200);
      const resource = (await routing('GET', '/api/resources/fixture-api')).body;
      expect(resource.assigned_middlewares.map((m: any) => m.id)).toContain(id);
      const config = (await routing('GET', '/api/traefik-config')).body;
      expect(config.http.middlewares[id]).toEqual({
        headers: { customResponseHeaders: { 'X-Upgraded': 'yes' } },
      });
      expect(config.http.routers['fixture-api-auth'].middlewares).toEqual(
        expect.arrayContaining([`${id}@http`]),
      );

      const staticFile = join(projectDir, 'traefik.yml');
      writeFileSync(staticFile, 'entryPoints:\n  web:\n    address: ":80"\n');
      expect((await routing('PUT', '/api/plugins/configpath', { path: staticFile })).status).toBe(200);
      expect(
        (
          await routing('POST', '/api/plugins/install', {
            moduleName: 'github.com/PascalMinder/geoblock',
            version: 'v0.3.3',
          })
        ).status,
      ).toBe(200);
      expect(readFileSync(staticFile, 'utf8')).toContain('v0.3.3');
      expect(existsSync(join(dataDir, 'middleware-manager', 'plugin-hub.json'))).toBe(true);
    });
  });
});
