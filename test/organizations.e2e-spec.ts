import { createHash } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { KeelProcess, spawnKeel, startKeel, testDatabaseServer, TestKeel } from './support/keel';
import { startEmbeddingServer } from './support/memory-fixtures';

type Body = Record<string, any>;
interface Answer {
  status: number;
  body: any;
}

const PASSWORD = 'admin-secret';
const ENV_KEY = 'env-key-default-org';
const basic = `Basic ${Buffer.from(`opencode:${PASSWORD}`).toString('base64')}`;

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed };
}

/** The admin API (server password). */
const admin = (base: string, method: string, path: string, body?: unknown, authorized = true) => call(base, method, path, authorized ? { authorization: basic } : {}, body);
/** The memory surface with an API key (as x-api-key, as the console sends it). */
const memory = (base: string, key: string, method: string, path: string, body?: unknown) => call(base, method, path, { 'x-api-key': key }, body);

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A web server whose page answers only once released (keeps a URL document in the pipeline), and a webhook receiver that always answers 503. */
async function startHelpers(): Promise<{ url: string; release: () => void; close: () => Promise<void> }> {
  const held: ServerResponse[] = [];
  let released = false;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/hook')) {
      req.resume();
      res.writeHead(503).end();
      return;
    }
    const answer = (r: ServerResponse) => r.writeHead(200, { 'content-type': 'text/plain' }).end('The held page talks about lighthouses on the northern coast.');
    if (released) answer(res);
    else held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    release: () => {
      released = true;
      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'text/plain' }).end('The held page talks about lighthouses on the northern coast.');
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('organizations and API keys of the memory surface', () => {
  let keel: TestKeel;
  let helpers: Awaited<ReturnType<typeof startHelpers>>;
  let embeddings: Awaited<ReturnType<typeof startEmbeddingServer>>;
  let base: string;

  beforeAll(async () => {
    helpers = await startHelpers();
    // With embeddings, searches also ask the vector index, which every organization shares.
    embeddings = await startEmbeddingServer();
    keel = await startKeel({
      env: {
        KEEL_API_KEYS: ENV_KEY,
        KEEL_SERVER_PASSWORD: PASSWORD,
        KEEL_ALLOW_PRIVATE_FETCH: 'true',
        KEEL_INGEST_WEBHOOKS: `${helpers.url}/hook`,
        KEEL_INGEST_WEBHOOK_BACKOFF_MS: '600000',
        KEEL_DREAM_DELAY_MS: '0',
        KEEL_EMBEDDING_URL: embeddings.url,
      },
    });
    base = keel.url;
  });

  afterAll(async () => {
    helpers?.release();
    await keel?.close();
    await helpers?.close();
    await embeddings?.close();
  });

  const newOrg = async (name: string): Promise<string> => {
    const created = await admin(base, 'POST', '/keel/organizations', { name });
    expect(created.status).toBe(201);
    return created.body.id;
  };
  const newKey = async (org: string, name = 'test key'): Promise<Body> => {
    const created = await admin(base, 'POST', `/keel/organizations/${org}/keys`, { name });
    expect(created.status).toBe(201);
    return created.body;
  };

  describe('admin API', () => {
    it('needs the server password on every route', async () => {
      for (const [method, path] of [
        ['GET', '/keel/organizations'],
        ['POST', '/keel/organizations'],
        ['PATCH', '/keel/organizations/local'],
        ['DELETE', '/keel/organizations/local'],
        ['GET', '/keel/organizations/local/keys'],
        ['POST', '/keel/organizations/local/keys'],
        ['DELETE', '/keel/organizations/local/keys/key_x'],
      ]) {
        expect([method, path, (await admin(base, method, path, method === 'GET' || method === 'DELETE' ? undefined : { name: 'x' }, false)).status]).toEqual([method, path, 401]);
      }
      // An API key is no server password.
      expect((await call(base, 'GET', '/keel/organizations', { authorization: `Bearer ${ENV_KEY}` })).status).toBe(401);
    });

    it('lists the default organization, creates, renames and deletes one', async () => {
      const listed = await admin(base, 'GET', '/keel/organizations');
      expect(listed.status).toBe(200);
      expect(listed.body[0]).toMatchObject({ id: 'local', name: 'Default', isDefault: true, keyCount: 0 });

      const id = await newOrg('  Team Scratch ');
      const after = (await admin(base, 'GET', '/keel/organizations')).body as Body[];
      expect(after.find((o) => o.id === id)).toMatchObject({ id, name: 'Team Scratch', isDefault: false, keyCount: 0 });

      const renamed = await admin(base, 'PATCH', `/keel/organizations/${id}`, { name: 'Team Renamed' });
      expect(renamed).toMatchObject({ status: 200, body: { id, name: 'Team Renamed' } });

      await newKey(id);
      expect((await admin(base, 'DELETE', `/keel/organizations/${id}`)).status).toBe(204);
      expect((await admin(base, 'GET', '/keel/organizations')).body.map((o: Body) => o.id)).not.toContain(id);
      expect(await admin(base, 'DELETE', `/keel/organizations/${id}`)).toMatchObject({ status: 404, body: { name: 'NotFoundError' } });
      // The default organization stays: KEEL_API_KEYS and keyless requests use it.
      expect(await admin(base, 'DELETE', '/keel/organizations/local')).toMatchObject({ status: 409, body: { name: 'ConflictError' } });
    });

    it('answers bad input with a 400 naming the field, and unknown ids with a 404', async () => {
      const org = await newOrg('Team Input');
      const cases: [string, string, unknown, (string | number)[]][] = [
        ['POST', '/keel/organizations', {}, ['name']],
        ['POST', '/keel/organizations', { name: 5 }, ['name']],
        ['POST', '/keel/organizations', { name: '   ' }, ['name']],
        ['POST', '/keel/organizations', { name: 'x'.repeat(101) }, ['name']],
        ['POST', '/keel/organizations', { name: 'ok', colour: 'red' }, ['colour']],
        ['PATCH', `/keel/organizations/${org}`, { name: null }, ['name']],
        ['POST', `/keel/organizations/${org}/keys`, { name: '' }, ['name']],
        ['POST', `/keel/organizations/${org}/keys`, { name: 'k', orgId: 'local' }, ['orgId']],
      ];
      for (const [method, path, body, field] of cases) {
        const answer = await admin(base, method, path, body);
        expect({ method, path, status: answer.status, success: answer.body?.success }).toEqual({ method, path, status: 400, success: false });
        expect(answer.body.error.map((i: Body) => i.path)).toContainEqual(field);
      }
      const notJson = await admin(base, 'POST', '/keel/organizations', ['name']);
      expect(notJson.status).toBe(400);
      for (const [method, path, body] of [
        ['PATCH', '/keel/organizations/org_missing', { name: 'x' }],
        ['GET', '/keel/organizations/org_missing/keys', undefined],
        ['POST', '/keel/organizations/org_missing/keys', { name: 'x' }],
        ['DELETE', `/keel/organizations/${org}/keys/key_missing`, undefined],
      ] as const) {
        expect(await admin(base, method, path, body)).toMatchObject({ status: 404, body: { name: 'NotFoundError' } });
      }
    });

    it('shows a key once, stores only its digest, records its use and refuses it once revoked', async () => {
      const org = await newOrg('Team Keys');
      const created = await newKey(org, 'search backend');
      expect(created).toEqual({ id: expect.stringMatching(/^key_/), orgId: org, name: 'search backend', prefix: created.key.slice(0, 13), createdAt: expect.any(String), lastUsedAt: null, key: expect.stringMatching(/^keel_[A-Za-z0-9]{40}$/) });

      const listed = await admin(base, 'GET', `/keel/organizations/${org}/keys`);
      expect(listed.body).toEqual([{ id: created.id, orgId: org, name: 'search backend', prefix: created.prefix, createdAt: created.createdAt, lastUsedAt: null }]);
      expect(JSON.stringify(listed.body)).not.toContain(created.key);

      // The database holds the digest, never the key.
      const rows = await keel.keel.app.get(DataSource).query(`SELECT * FROM memory_api_key WHERE id = ${testDatabaseServer ? '$1' : '?'}`, [created.id]);
      expect(rows).toHaveLength(1);
      expect(rows[0].digest).toBe(createHash('sha256').update(created.key).digest('hex'));
      expect(JSON.stringify(rows)).not.toContain(created.key.slice(13));

      expect((await memory(base, created.key, 'POST', '/v3/documents/list', {})).status).toBe(200);
      expect((await call(base, 'POST', '/v3/documents/list', { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' })).status).toBe(200);
      const used = await eventually(
        async () => ((await admin(base, 'GET', `/keel/organizations/${org}/keys`)).body as Body[])[0],
        (k) => k.lastUsedAt !== null,
        'lastUsedAt',
      );
      expect(Date.parse(used.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(created.createdAt));
      expect((await admin(base, 'GET', '/keel/organizations')).body.find((o: Body) => o.id === org).keyCount).toBe(1);

      expect((await admin(base, 'DELETE', `/keel/organizations/${org}/keys/${created.id}`)).status).toBe(204);
      expect(await memory(base, created.key, 'POST', '/v3/documents/list', {})).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
      expect((await admin(base, 'GET', `/keel/organizations/${org}/keys`)).body).toEqual([]);
      expect((await admin(base, 'DELETE', `/keel/organizations/${org}/keys/${created.id}`)).status).toBe(404);
      // A key of another organization is not revoked through this one.
      const other = await newKey(org);
      const elsewhere = await newOrg('Team Elsewhere');
      expect((await admin(base, 'DELETE', `/keel/organizations/${elsewhere}/keys/${other.id}`)).status).toBe(404);
      expect((await memory(base, other.key, 'POST', '/v3/documents/list', {})).status).toBe(200);
    });

    it('keeps KEEL_API_KEYS as the default organization and refuses unknown keys', async () => {
      expect((await memory(base, ENV_KEY, 'GET', '/v3/settings')).status).toBe(200);
      expect((await memory(base, 'keel_not-a-key', 'GET', '/v3/settings')).status).toBe(401);
      expect((await memory(base, 'anything', 'GET', '/v3/settings')).status).toBe(401);
      expect((await call(base, 'GET', '/v3/settings', {})).status).toBe(401);
    });
  });

  // On PostgreSQL, B's requests go to a second replica on the same database, so every route's isolation
  // holds across processes (no state kept in one of them); SQLite is one process by design.
  describe(`isolation: data of organization A is invisible to organization B on every /v3 and /v4 route${testDatabaseServer ? ', B on a second replica' : ''}`, () => {
    let keyA: string;
    let keyB: string;
    let orgA: string;
    let replicaB: KeelProcess | undefined;
    /** Where B's requests go: the second replica on PostgreSQL, the one server on SQLite. */
    let baseB: string;
    const TAG = 'shared_tag';
    const a = (method: string, path: string, body?: unknown) => memory(base, keyA, method, path, body);
    const b = (method: string, path: string, body?: unknown) => memory(baseB, keyB, method, path, body);
    /** A's key on B's server: shows that server holds A's data before B is checked not to see it. */
    const aOnB = (method: string, path: string, body?: unknown) => memory(baseB, keyA, method, path, body);
    /** Every memory route this test exercises, as `/doc` names them. */
    const covered = new Set<string>();
    const cover = (method: string, path: string) => covered.add(`${method.toLowerCase()} ${path}`);
    let doc: Body;
    let memoryA: Body;

    beforeAll(async () => {
      if (testDatabaseServer) replicaB = await spawnKeel({ ...keel.env, KEEL_PORT: '0', KEEL_LOG_LEVEL: 'warn' });
      baseB = replicaB?.url ?? base;
      orgA = await newOrg('Team A');
      keyA = (await newKey(orgA, 'a')).key;
      keyB = (await newKey(await newOrg('Team B'), 'b')).key;
      const added = await a('POST', '/v3/documents', { content: 'Ada Lovelace wrote the first published program for the Analytical Engine.', containerTag: TAG, customId: 'same-id' });
      expect(added.status).toBe(200);
      doc = await eventually(
        async () => (await a('GET', `/v3/documents/${added.body.id}`)).body,
        (d) => d.status === 'done' && d.dreamingStatus === 'done',
        'document A',
      );
      const created = await a('POST', '/v4/memories', { containerTag: TAG, memories: [{ content: 'Grace prefers tea over coffee', isStatic: true }] });
      expect(created.status).toBe(201);
      memoryA = created.body.memories[0];
    });

    afterAll(async () => {
      await replicaB?.stop();
      const ops = (await admin(base, 'GET', '/doc')).body as { paths: Record<string, Record<string, unknown>> };
      const memoryRoutes = Object.entries(ops.paths)
        .filter(([path]) => path.startsWith('/v3/') || path.startsWith('/v4/'))
        .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
      expect([...memoryRoutes].sort()).toEqual([...covered].sort());
    });

    it('documents: add, upload, batch and conversations write into the key’s own organization (customId is per organization)', async () => {
      cover('post', '/v3/documents');
      const mine = await b('POST', '/v3/documents', { content: 'Bob keeps bees.', containerTag: TAG, customId: 'same-id' });
      expect(mine.status).toBe(200);
      expect(mine.body.id).not.toBe(doc.id);

      cover('post', '/v3/documents/batch');
      const batch = await b('POST', '/v3/documents/batch', { containerTag: TAG, documents: [{ content: 'Bob keeps more bees.', customId: 'same-id' }, 'A fresh note of B'] });
      expect(batch.status).toBe(200);
      expect(batch.body.results.map((r: Body) => r.id)).not.toContain(doc.id);
      expect(batch.body.results[0].id).toBe(mine.body.id);

      cover('post', '/v3/documents/file');
      const form = new FormData();
      form.append('file', new Blob(['Uploaded by B.'], { type: 'text/plain' }), 'b.txt');
      form.append('customId', 'same-id');
      form.append('containerTag', TAG);
      const upload = await fetch(`${baseB}/v3/documents/file`, { method: 'POST', headers: { 'x-api-key': keyB }, body: form });
      expect(upload.status).toBe(200);
      expect(((await upload.json()) as Body).id).toBe(mine.body.id);

      cover('post', '/v4/conversations');
      const convA = await a('POST', '/v4/conversations', { conversationId: 'conv-1', containerTag: TAG, messages: [{ role: 'user', content: 'A says hello' }] });
      const convB = await b('POST', '/v4/conversations', { conversationId: 'conv-1', containerTag: TAG, messages: [{ role: 'user', content: 'B says hello' }] });
      expect(convA.status).toBe(200);
      expect(convB.status).toBe(200);
      expect(convB.body.id).not.toBe(convA.body.id);
      expect((await a('GET', `/v3/documents/${convA.body.id}`)).body.content).not.toContain('B says');

      // A's document is unchanged by B's writes with the same customId.
      const still = (await a('GET', '/v3/documents/same-id')).body;
      expect(still.id).toBe(doc.id);
      expect(still.content).toBe(doc.content);
    });

    it('documents: get, chunks, list, processing, update and delete see nothing of A', async () => {
      cover('get', '/v3/documents/{id}');
      expect((await b('GET', `/v3/documents/${doc.id}`)).status).toBe(404);
      expect((await b('GET', '/v3/documents/same-id')).body.id).not.toBe(doc.id);
      expect((await a('GET', `/v3/documents/${doc.id}`)).status).toBe(200);
      expect((await aOnB('GET', `/v3/documents/${doc.id}`)).status).toBe(200);

      cover('get', '/v3/documents/{id}/chunks');
      expect((await b('GET', `/v3/documents/${doc.id}/chunks`)).status).toBe(404);
      expect((await a('GET', `/v3/documents/${doc.id}/chunks`)).body.total).toBeGreaterThan(0);

      cover('post', '/v3/documents/list');
      const listB = (await b('POST', '/v3/documents/list', { containerTags: [TAG], limit: 100 })).body;
      expect(listB.memories.map((d: Body) => d.id)).not.toContain(doc.id);
      expect((await a('POST', '/v3/documents/list', { containerTags: [TAG], limit: 100 })).body.memories.map((d: Body) => d.id)).toContain(doc.id);

      cover('get', '/v3/documents/processing');
      const held = await a('POST', '/v3/documents', { content: `${helpers.url}/held-page`, containerTag: TAG });
      await eventually(async () => (await a('GET', '/v3/documents/processing')).body, (p) => p.documents.some((d: Body) => d.id === held.body.id), 'A processing');
      expect((await aOnB('GET', '/v3/documents/processing')).body.documents.map((d: Body) => d.id)).toContain(held.body.id);
      expect((await b('GET', '/v3/documents/processing')).body.documents.map((d: Body) => d.id)).not.toContain(held.body.id);
      helpers.release();
      await eventually(async () => (await a('GET', `/v3/documents/${held.body.id}`)).body.status, (s) => s === 'done' || s === 'failed', 'held document');

      cover('patch', '/v3/documents/{id}');
      expect((await b('PATCH', `/v3/documents/${doc.id}`, { metadata: { owner: 'b' } })).status).toBe(404);
      expect((await a('GET', `/v3/documents/${doc.id}`)).body.metadata).not.toHaveProperty('owner');

      cover('delete', '/v3/documents/{id}');
      expect((await b('DELETE', `/v3/documents/${doc.id}`)).status).toBe(404);

      cover('delete', '/v3/documents/bulk');
      const bulkIds = await b('DELETE', '/v3/documents/bulk', { ids: [doc.id] });
      expect(bulkIds.body).toMatchObject({ deletedCount: 0, errors: [{ id: doc.id, error: 'Document not found' }] });
      // B's bulk delete by the shared tag deletes B's documents only.
      const bulkTag = await b('DELETE', '/v3/documents/bulk', { containerTags: [TAG] });
      expect(bulkTag.body.deletedCount).toBeGreaterThan(0);
      expect((await a('GET', `/v3/documents/${doc.id}`)).status).toBe(200);
      expect((await a('GET', `/v3/documents/${held.body.id}`)).status).toBe(200);
    });

    it('search: /v3/search and /v4/search in every mode find nothing of A', async () => {
      cover('post', '/v3/search');
      const found = (await a('POST', '/v3/search', { q: 'Lovelace Analytical Engine', containerTags: [TAG] })).body;
      expect(found.results.map((r: Body) => r.documentId)).toContain(doc.id);
      expect((await b('POST', '/v3/search', { q: 'Lovelace Analytical Engine', containerTags: [TAG] })).body.results).toEqual([]);
      expect((await b('POST', '/v3/search', { q: 'Lovelace Analytical Engine' })).body.results).toEqual([]);
      expect((await b('POST', '/v3/search', { q: 'Lovelace', docId: doc.id })).status).toBe(404);

      // By meaning alone (no shared word): a vector hit, which the shared vector index returns for B too and the organization filter drops.
      const car = await a('POST', '/v3/documents', { content: 'My car is crimson and fast.', containerTag: 'lot' });
      const byMeaning = { q: 'automobile', containerTag: 'lot', searchMode: 'documents', threshold: 0.2 };
      await eventually(async () => (await a('POST', '/v4/search', byMeaning)).body.results.map((r: Body) => r.documents[0].id), (ids) => ids.includes(car.body.id), 'A vector hit');
      // B's server's own vector index holds A's vector too (replicas catch up with each other's writes).
      await eventually(async () => (await aOnB('POST', '/v4/search', byMeaning)).body.results.map((r: Body) => r.documents[0].id), (ids) => ids.includes(car.body.id), 'A vector hit on B\'s server');
      expect((await b('POST', '/v4/search', byMeaning)).body.results).toEqual([]);
      expect((await b('POST', '/v4/search', { ...byMeaning, containerTag: undefined })).body.results).toEqual([]);
      expect((await b('POST', '/v3/search', { q: 'automobile' })).body.results).toEqual([]);

      cover('post', '/v4/search');
      for (const searchMode of ['memories', 'hybrid', 'documents']) {
        const mine = (await a('POST', '/v4/search', { q: 'Lovelace Analytical Engine tea', containerTag: TAG, searchMode, threshold: 0 })).body;
        expect([searchMode, mine.results.length > 0]).toEqual([searchMode, true]);
        const theirs = (await b('POST', '/v4/search', { q: 'Lovelace Analytical Engine tea', containerTag: TAG, searchMode, threshold: 0 })).body;
        expect([searchMode, theirs.results]).toEqual([searchMode, []]);
        expect((await b('POST', '/v4/search', { q: 'Lovelace Analytical Engine tea', searchMode, threshold: 0 })).body.results).toEqual([]);
      }
    });

    it('memories and profiles: list, profile, update, forget and restore see nothing of A; create writes to B', async () => {
      cover('post', '/v4/memories/list');
      expect((await a('POST', '/v4/memories/list', { containerTags: [TAG] })).body.memoryEntries.map((m: Body) => m.id)).toContain(memoryA.id);
      expect((await aOnB('POST', '/v4/memories/list', { containerTags: [TAG] })).body.memoryEntries.map((m: Body) => m.id)).toContain(memoryA.id);
      expect((await b('POST', '/v4/memories/list', { containerTags: [TAG] })).body.memoryEntries).toEqual([]);
      expect((await a('POST', '/v4/memories/list', { containerTags: [TAG] })).body.memoryEntries[0].orgId).toBe(orgA);

      cover('post', '/v4/profile');
      const profileA = (await a('POST', '/v4/profile', { containerTag: TAG, q: 'tea' })).body;
      expect(profileA.profile.static).toContain('Grace prefers tea over coffee');
      const profileB = (await b('POST', '/v4/profile', { containerTag: TAG, q: 'tea' })).body;
      expect(profileB).toEqual({ profile: { static: [], dynamic: [] }, searchResults: expect.objectContaining({ results: [] }) });

      cover('post', '/v4/profile/buckets');
      expect((await b('POST', '/v4/profile/buckets', { containerTag: TAG })).status).toBe(200);

      cover('patch', '/v4/memories');
      expect((await b('PATCH', '/v4/memories', { containerTag: TAG, id: memoryA.id, newContent: 'Grace prefers coffee' })).status).toBe(404);
      expect((await b('PATCH', '/v4/memories', { containerTag: TAG, content: 'Grace prefers tea over coffee', newContent: 'Grace prefers coffee' })).status).toBe(404);

      cover('delete', '/v4/memories');
      expect((await b('DELETE', '/v4/memories', { containerTag: TAG, id: memoryA.id })).status).toBe(404);

      cover('post', '/v4/memories/restore');
      expect((await a('DELETE', '/v4/memories', { containerTag: TAG, id: memoryA.id })).status).toBe(200);
      expect((await b('POST', '/v4/memories/restore', { containerTag: TAG, id: memoryA.id })).status).toBe(404);
      expect((await a('POST', '/v4/memories/restore', { containerTag: TAG, id: memoryA.id })).body).toEqual({ id: memoryA.id, forgotten: false });

      cover('post', '/v4/memories');
      const same = await b('POST', '/v4/memories', { containerTag: TAG, memories: [{ content: 'Grace prefers tea over coffee' }] });
      expect(same.status).toBe(201);
      expect(same.body.memories[0].id).not.toBe(memoryA.id);
      const listA = (await a('POST', '/v4/memories/list', { containerTags: [TAG] })).body.memoryEntries as Body[];
      expect(listA.map((m) => m.id)).not.toContain(same.body.memories[0].id);
      expect(listA.find((m) => m.id === memoryA.id)).toMatchObject({ memory: 'Grace prefers tea over coffee' });
    });

    it('container tags: each organization lists its own', async () => {
      cover('get', '/v3/container-tags');
      expect((await a('POST', '/v3/documents', { content: 'A note only A tags so.', containerTag: 'only-a-tag' })).status).toBe(200);
      const tagsOf = async (call: typeof a) => ((await call('GET', '/v3/container-tags')).body.containerTags as Body[]).map((t) => t.containerTag);
      expect(await tagsOf(a)).toContain('only-a-tag');
      expect(await tagsOf(aOnB)).toContain('only-a-tag');
      expect(await tagsOf(b)).not.toContain('only-a-tag');
    });

    it('settings: each organization has its own', async () => {
      cover('patch', '/v3/settings');
      expect((await a('PATCH', '/v3/settings', { chunkSize: 512, filterPrompt: 'only A' })).body).toEqual({ orgId: orgA, orgSlug: orgA, updated: { chunkSize: 512, filterPrompt: 'only A' } });
      cover('get', '/v3/settings');
      expect((await b('GET', '/v3/settings')).body).toMatchObject({ chunkSize: null, filterPrompt: null });
      expect((await a('GET', '/v3/settings')).body).toMatchObject({ chunkSize: 512, filterPrompt: 'only A' });
      expect((await memory(baseB, ENV_KEY, 'GET', '/v3/settings')).body).toMatchObject({ chunkSize: null });
      expect((await aOnB('GET', '/v3/settings')).body).toMatchObject({ chunkSize: 512, filterPrompt: 'only A' });
      await b('PATCH', '/v3/settings', { chunkSize: 900 });
      expect((await a('GET', '/v3/settings')).body.chunkSize).toBe(512);
    });

    it('webhooks: the outbox lists the organization’s own deliveries', async () => {
      cover('get', '/v3/webhooks/deliveries');
      const mine = await eventually(async () => (await a('GET', `/v3/webhooks/deliveries?documentId=${doc.id}`)).body, (o) => o.total > 0, 'A deliveries');
      expect(mine.deliveries.every((d: Body) => d.documentId === doc.id)).toBe(true);
      expect((await aOnB('GET', `/v3/webhooks/deliveries?documentId=${doc.id}`)).body.total).toBeGreaterThan(0);
      expect((await b('GET', `/v3/webhooks/deliveries?documentId=${doc.id}`)).body.total).toBe(0);
      const allB = (await b('GET', '/v3/webhooks/deliveries')).body.deliveries as Body[];
      expect(allB.map((d) => d.documentId)).not.toContain(doc.id);
    });

    it('an organization holding data is not deleted (409), and keeps working', async () => {
      expect(await admin(base, 'DELETE', `/keel/organizations/${orgA}`)).toMatchObject({ status: 409, body: { name: 'ConflictError', data: { message: expect.stringMatching(/still holds data/) } } });
      expect((await a('GET', `/v3/documents/${doc.id}`)).status).toBe(200);
    });
  });

  it('on a loopback server without KEEL_API_KEYS, no key is the default organization; an issued key must be valid', async () => {
    const open = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD } });
    try {
      const url = open.url;
      const org = (await admin(url, 'POST', '/keel/organizations', { name: 'Team Open' })).body.id;
      const key = (await admin(url, 'POST', `/keel/organizations/${org}/keys`, { name: 'k' })).body.key as string;
      const added = await call(url, 'POST', '/v3/documents', {}, { content: 'Written without a key.' });
      expect(added.status).toBe(200);
      const list = (headers: Record<string, string>) => call(url, 'POST', '/v3/documents/list', headers, {});
      expect((await list({})).body.memories.map((d: Body) => d.id)).toEqual([added.body.id]);
      // A key Keel did not issue is ignored, as before organizations; the organization's key sees its own (empty) space.
      expect((await list({ 'x-api-key': 'whatever' })).body.memories.map((d: Body) => d.id)).toEqual([added.body.id]);
      expect((await list({ 'x-api-key': key })).body.memories).toEqual([]);
      expect((await list({ 'x-api-key': 'keel_revokedOrNeverIssued' })).status).toBe(401);
      const keyId = (await admin(url, 'GET', `/keel/organizations/${org}/keys`)).body[0].id;
      expect((await admin(url, 'DELETE', `/keel/organizations/${org}/keys/${keyId}`)).status).toBe(204);
      expect((await list({ authorization: `Bearer ${key}` })).status).toBe(401);
    } finally {
      await open.close();
    }
  });

  it('a small organization’s full-text search is not crowded out by a larger one writing the same words later', async () => {
    // Full text only (no embeddings): the vector index would find the document by itself.
    const plain = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD, KEEL_DREAM_DELAY_MS: '0' } });
    try {
      const url = plain.url;
      const keyOf = async (name: string) => {
        const org = (await admin(url, 'POST', '/keel/organizations', { name })).body.id;
        return (await admin(url, 'POST', `/keel/organizations/${org}/keys`, { name })).body.key as string;
      };
      const small = await keyOf('Team Small');
      const big = await keyOf('Team Big');
      const mine = await memory(url, small, 'POST', '/v3/documents', { content: 'The lighthouse keeper logs the foghorn schedule.', containerTag: 'coast' });
      await eventually(async () => (await memory(url, small, 'GET', `/v3/documents/${mine.body.id}`)).body.status, (s) => s === 'done', 'small document');
      // More newer matches of the same words than the full-text index ranks per term (1,000).
      for (let batch = 0; batch < 2; batch++) {
        const documents = Array.from({ length: 550 }, (_, i) => `Lighthouse note ${batch * 550 + i}: the foghorn sounds at dusk.`);
        expect((await memory(url, big, 'POST', '/v3/documents/batch', { containerTag: 'coast', documents })).status).toBe(200);
      }
      await eventually(async () => (await memory(url, big, 'GET', '/v3/documents/processing')).body.totalCount, (n) => n === 0, 'big organization ingested', 150_000);
      for (const q of ['lighthouse', 'lighthouse foghorn']) {
        expect((await memory(url, small, 'POST', '/v3/search', { q, containerTag: 'coast' })).body.results.map((r: Body) => r.documentId)).toEqual([mine.body.id]);
        expect((await memory(url, small, 'POST', '/v3/search', { q })).body.results.map((r: Body) => r.documentId)).toEqual([mine.body.id]);
        expect((await memory(url, small, 'POST', '/v4/search', { q, searchMode: 'documents', threshold: 0 })).body.results.map((r: Body) => r.documents[0].id)).toEqual([mine.body.id]);
      }
      expect((await memory(url, big, 'POST', '/v3/search', { q: 'lighthouse', containerTag: 'coast', limit: 5 })).body.results).toHaveLength(5);
    } finally {
      await plain.close();
    }
  }, 200_000);

  describe('replicas', () => {
    let second: KeelProcess | undefined;
    afterAll(async () => {
      await second?.stop();
    });

    // SQLite is one process by design: there the revocation is checked on the one server.
    it('a key revoked on replica 1 is refused at once on replica 2 (one database, no cache)', async () => {
      if (testDatabaseServer) second = await spawnKeel({ ...keel.env, KEEL_PORT: '0', KEEL_LOG_LEVEL: 'warn' });
      const other = second?.url ?? base;
      const org = await newOrg('Team Replicas');
      const created = await newKey(org, 'replicated');
      // Created on replica 1, accepted on replica 2 at once.
      expect((await memory(other, created.key, 'POST', '/v3/documents', { content: 'Written through replica 2.' })).status).toBe(200);
      expect((await admin(other, 'GET', `/keel/organizations/${org}/keys`)).body.map((k: Body) => k.id)).toEqual([created.id]);
      expect((await admin(base, 'DELETE', `/keel/organizations/${org}/keys/${created.id}`)).status).toBe(204);
      expect((await memory(other, created.key, 'POST', '/v3/documents/list', {})).status).toBe(401);
      expect((await memory(base, created.key, 'POST', '/v3/documents/list', {})).status).toBe(401);
    });
  });
});
