import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { ResourceWatcher } from '../src/routing/resources/resource-watcher.service';
import { FakeRoutingUpstream } from './support/fake-routing-upstreams';
import {
  BodyVariant,
  formatFailures,
  formatStatuses,
  FuzzOutcome,
  FuzzRequest,
  OpenApi,
  Operation,
  operationsOf,
  PATH_PARAM_VARIANTS,
  PathVariant,
  Prng,
  queryValues,
  sampleSchema,
  send,
  mutateBody,
  varyPath,
} from './support/fuzz';
import { startKeel, tempDir, TestKeel } from './support/keel';

/**
 * Every operation of `/doc`, on the running server, with the hostile inputs of issue 10: path
 * spellings, NUL, deep nesting, huge values, non-finite numbers, wrong types. Each request must be
 * answered (no dropped connection), never with a 5xx, and an error in its surface's dialect with a
 * bounded body. Seeded: `KEEL_FUZZ_SEED=<n>` replays a run.
 */

const SEED = Number(process.env.KEEL_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUEST_TIMEOUT_MS = 20_000;
const PASSWORD = 'fuzz-password';
const API_KEY = 'fuzz-api-key';

/**
 * Operations not fuzzed, and why: the event streams never end by design; the two dispose
 * operations tear down what the other requests use, so they run once, last.
 */
const SKIPPED: Record<string, string> = {
  'global.event': 'SSE stream, stays open by design',
  'event.subscribe': 'SSE stream, stays open by design',
};
const LAST = ['instance.dispose', 'global.dispose'];
/** Operations that spawn a process per accepted request: a few valid ones are enough. */
const SPAWNING: Record<string, number> = { 'session.shell': 6, 'pty.create': 6 };

/** Bodies for operations `/doc` gives no requestBody schema (the memory surface validates by hand). */
const SEED_BODIES: Record<string, unknown> = {
  'documents.list': { containerTags: ['fuzz'], limit: 10, page: 1, sort: 'createdAt', order: 'desc' },
  'documents.update': { content: 'fuzz updated', containerTag: 'fuzz', metadata: { k: 'v', n: 1 } },
  'documents.deleteBulk': { containerTags: ['fuzz-bulk'] },
  'search.documents': { q: 'fuzz', limit: 5, containerTags: ['fuzz'], chunkThreshold: 0.5, documentThreshold: 0.5, rerank: false },
  'search.memories': { q: 'fuzz', limit: 5, containerTag: 'fuzz', threshold: 0.5 },
  profile: { containerTag: 'fuzz', q: 'fuzz', threshold: 0.5 },
  'memories.create': { containerTag: 'fuzz', memories: [{ content: 'fuzz likes tea', isStatic: false, metadata: { n: 1 } }] },
  'memories.updateMemory': { containerTag: 'fuzz', content: 'fuzz likes tea', newContent: 'fuzz likes coffee' },
  'memories.forget': { containerTag: 'fuzz', content: 'fuzz likes coffee' },
  'memories.list': { containerTags: ['fuzz'], limit: 10, page: 1 },
  'profile.buckets': { containerTag: 'fuzz' },
  'documents.uploadFile': { containerTags: '["fuzz"]' },
  // Where the schema's sample would be refused before the handler's interesting part.
  'documents.batchAdd': { containerTag: 'fuzz', documents: [{ content: 'fuzz one' }, { content: 'fuzz two', metadata: { n: 2 } }] },
  'middlewares.create': { name: 'fuzz', type: 'headers', config: { customRequestHeaders: { a: 'b' } } },
  'middlewares.update': { name: 'fuzz', type: 'headers', config: { customRequestHeaders: { a: 'c' } } },
  'services.create': { name: 'fuzz', type: 'loadBalancer', config: { servers: [{ url: 'http://127.0.0.1:9' }] } },
  'services.update': { name: 'fuzz', type: 'loadBalancer', config: { servers: [{ url: 'http://127.0.0.1:8' }] } },
  'datasource.setActive': { name: 'pangolin' },
  'datasource.test': { type: 'traefik', url: 'http://127.0.0.1:9' },
  'resources.updateTcpConfig': { tcp_enabled: true, tcp_entrypoints: 'tcp', tcp_sni_rule: 'HostSNI(`fuzz.example.com`)' },
};

const BODY_VARIANTS: [BodyVariant, number][] = [
  ['valid', 2],
  ['drop-field', 1],
  ['extra-field', 1],
  ['wrong-type', 3],
  ['nul-string', 2],
  ['non-finite', 2],
  ['deep', 1],
  ['huge-string', 1],
  ['huge-array', 1],
  ['huge-object', 1],
  ['root-not-object', 1],
  ['malformed-json', 1],
  ['text-plain', 1],
  ['urlencoded', 1],
  ['multipart', 1],
  ['bad-charset', 1],
  ['bad-encoding', 1],
];
/**
 * The run with credentials repeats what depends on them (dialect, auth before parsing) but not the
 * costly bodies the run without already sent to the same handlers: it keeps the suite near a minute
 * per engine.
 */
const CREDENTIALED_BODY_VARIANTS = new Set<BodyVariant>(['valid', 'wrong-type', 'nul-string', 'deep', 'malformed-json', 'root-not-object']);
const PATH_VARIANTS: PathVariant[] = ['uppercase', 'trailing-slash', 'double-slash', 'encoded-slash', 'semicolon'];

interface Fixtures {
  directory: string;
  ids: Record<string, string>;
}

function credentialHeaders(withCredentials: boolean): Record<string, string> {
  if (!withCredentials) return {};
  // Basic for the session surface and the routing manager, the key header for the memory surface.
  return { authorization: `Basic ${Buffer.from(`opencode:${PASSWORD}`).toString('base64')}`, 'x-api-key': API_KEY };
}

/** The real id a path parameter should carry, so requests get past the "not found" check. */
function paramValue(op: Operation, name: string, fx: Fixtures): string {
  const t = op.template;
  const byTemplate =
    name === 'id'
      ? t.startsWith('/api/middlewares')
        ? fx.ids.middleware
        : t.startsWith('/api/services')
          ? fx.ids.service
          : t.startsWith('/api/resources')
            ? fx.ids.resource
            : fx.ids.document
      : name === 'middlewareId'
        ? fx.ids.middleware
        : name === 'name'
          ? 'pangolin'
          : fx.ids[name];
  return encodeURIComponent(byTemplate ?? 'fuzz');
}

function fillTemplate(op: Operation, fx: Fixtures, override?: { name: string; value: string }): string {
  return op.template.replace(/\{([^}]+)\}/g, (_m, name: string) => (override?.name === name ? override.value : paramValue(op, name, fx)));
}

function isNumeric(schema: Record<string, unknown> | undefined): boolean {
  const type = schema?.type;
  return type === 'number' || type === 'integer' || (Array.isArray(type) && (type.includes('number') || type.includes('integer')));
}

function baseQuery(op: Operation, fx: Fixtures, rng: Prng): Record<string, string> {
  const query: Record<string, string> = {};
  for (const p of op.operation.parameters ?? []) {
    if (p.in !== 'query') continue;
    if (p.name === 'directory') query.directory = encodeURIComponent(fx.directory);
    else if (p.required || rng.chance(0.5)) query[p.name] = encodeURIComponent(JSON.stringify(sampleSchema({ paths: {} }, p.schema, rng) ?? 'fuzz').replace(/^"|"$/g, ''));
  }
  if (op.id === 'find.text' || op.id === 'find.files' || op.id === 'find.symbols') query[op.id === 'find.text' ? 'pattern' : 'query'] ??= 'fuzz';
  if (op.id === 'file.list' || op.id === 'file.read') query.path = 'README.md';
  return query;
}

function withQuery(path: string, query: Record<string, string>, extra = ''): string {
  const q = Object.entries(query).map(([k, v]) => `${k}=${v}`);
  if (extra) q.push(extra);
  return q.length ? `${path}?${q.join('&')}` : path;
}

function bodySchema(op: Operation): Record<string, unknown> | undefined {
  return op.operation.requestBody?.content?.['application/json']?.schema ?? op.operation.requestBody?.content?.['multipart/form-data']?.schema;
}

/** The requests of one operation: valid-ish ones, then each kind of mutation. */
function requestsFor(doc: OpenApi, op: Operation, fx: Fixtures, rng: Prng, headers: Record<string, string>, bodyVariants = BODY_VARIANTS): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  const path = fillTemplate(op, fx);
  const query = baseQuery(op, fx, rng);
  const schema = bodySchema(op);
  const hasBody = !!schema || op.id in SEED_BODIES;
  const sampleBody = (): unknown => (op.id in SEED_BODIES ? structuredClone(SEED_BODIES[op.id]) : sampleSchema(doc, schema, rng) ?? {});
  const make = (variant: string, p: string, body?: { body: string; contentType: string; headers?: Record<string, string> }): FuzzRequest => ({
    op,
    variant,
    method: op.method,
    path: p,
    body: body?.body,
    contentType: body?.contentType,
    headers: { ...headers, ...body?.headers },
  });
  const validBody = () => (hasBody ? mutateBody(sampleBody(), 'valid', rng) : undefined);

  if (hasBody) {
    for (const [variant, n] of bodyVariants) {
      for (let i = 0; i < n; i++) out.push(make(`body:${variant}`, withQuery(path, query), mutateBody(sampleBody(), variant, rng)));
    }
  } else out.push(make('valid', withQuery(path, query)));

  // A method the path does not serve: a JSON 404 (or 405) in the surface's dialect.
  const unrouted = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !(m.toLowerCase() in doc.paths[op.template]));
  if (unrouted.length) out.push({ ...make('method:unrouted', withQuery(path, query), validBody()), method: rng.pick(unrouted) });

  for (const variant of PATH_VARIANTS) out.push(make(`path:${variant}`, withQuery(varyPath(path, variant, rng), query), validBody()));

  for (const p of op.operation.parameters ?? []) {
    if (p.in === 'path') {
      const values = new Set(['%00', rng.pick(PATH_PARAM_VARIANTS), rng.pick(PATH_PARAM_VARIANTS), rng.pick(PATH_PARAM_VARIANTS)]);
      for (const value of values) {
        out.push(make(`param:${p.name}`, withQuery(fillTemplate(op, fx, { name: p.name, value }), query), validBody()));
      }
    } else if (p.in === 'query') {
      const numeric = isNumeric(p.schema);
      const candidates = queryValues(numeric);
      const values = new Set([numeric ? '1e309' : '%00', rng.pick(candidates), rng.pick(candidates), rng.pick(candidates)]);
      for (const value of values) out.push(make(`query:${p.name}`, withQuery(path, { ...query, [p.name]: value }), validBody()));
      const again = query[p.name] ?? 'fuzz';
      out.push(make(`query:${p.name}`, withQuery(path, query, `${p.name}=${again}`), validBody()));
      const without = Object.fromEntries(Object.entries(query).filter(([k]) => k !== p.name));
      out.push(make(`query:${p.name}`, withQuery(path, without, `${p.name}[a]=${again}`), validBody()));
    }
  }
  // The `x-opencode-directory` header is the other way to name a directory.
  if (op.surface === 'session' && query.directory) {
    for (const value of ['%00', 'relative', encodeURIComponent(`${fx.directory}/\u0000`), '%E0%A4%A']) {
      const { directory: _, ...rest } = query;
      out.push({ ...make('header:x-opencode-directory', withQuery(path, rest), validBody()), headers: { ...headers, 'x-opencode-directory': value } });
    }
  }

  const cap = SPAWNING[op.id];
  if (cap !== undefined) {
    // Keep every request that fails validation before spawning; only a few valid-ish ones.
    const valid = out.filter((r) => r.variant === 'body:valid' || r.variant.startsWith('path:'));
    return [...out.filter((r) => !valid.includes(r)), ...valid.slice(0, cap)];
  }
  return out;
}

/** Whether /doc secures the operation (the share page and the console's sign-in routes are public by design). */
function isSecured(op: Operation): boolean {
  return ((op.operation as { security?: unknown[] }).security ?? []).length > 0;
}

/** Without credentials, or with the other surface's, every spelling of every path is refused. */
function credentialChecks(op: Operation, fx: Fixtures, rng: Prng): FuzzRequest[] {
  const path = fillTemplate(op, fx);
  const checked: PathVariant[] = ['uppercase', 'encoded-slash'];
  const spellings = [path, ...checked.map((v) => varyPath(path, v, rng))];
  const wrong =
    op.surface === 'memory'
      ? { authorization: `Basic ${Buffer.from(`opencode:${PASSWORD}`).toString('base64')}` }
      : { authorization: `Bearer ${API_KEY}`, 'x-api-key': API_KEY };
  const query = op.operation.parameters?.some((p) => p.name === 'directory') ? `?directory=${encodeURIComponent(fx.directory)}` : '';
  return spellings.flatMap((p, i) =>
    [{}, wrong].map((headers, j) => ({
      op,
      variant: `auth:${i === 0 ? 'canonical' : checked[i - 1]}${j === 0 ? '' : '+wrong-credential'}`,
      method: op.method,
      path: p + query,
      body: op.method === 'GET' ? undefined : '{}',
      headers,
      expectStatus: (s: number) => s === 401 || s === 404,
    })),
  );
}

async function runPool(base: string, requests: FuzzRequest[], concurrency: number): Promise<FuzzOutcome[]> {
  const outcomes: FuzzOutcome[] = new Array(requests.length);
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const i = next++;
      outcomes[i] = await send(base, requests[i], REQUEST_TIMEOUT_MS);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return outcomes;
}

async function json(keel: TestKeel, headers: Record<string, string>, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${keel.url}${path}`, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`fixture ${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Real ids for the path parameters: a session with a message and a part, a PTY, routing rows, a document. */
async function createFixtures(keel: TestKeel, headers: Record<string, string>, directory: string, pangolin: FakeRoutingUpstream): Promise<Fixtures> {
  const dir = `directory=${encodeURIComponent(directory)}`;
  const ids: Record<string, string> = { providerID: 'fuzzprovider', permissionID: 'per_fuzz0000000000000000000' };
  ids.projectID = (await json(keel, headers, 'GET', `/project/current?${dir}`)).id;
  ids.sessionID = (await json(keel, headers, 'POST', `/session?${dir}`, { title: 'fuzz' })).id;
  const shell = await json(keel, headers, 'POST', `/session/${ids.sessionID}/shell?${dir}`, { agent: 'build', command: 'true' });
  ids.messageID = shell.info.id;
  ids.partID = shell.parts[0].id;
  ids.ptyID = (await json(keel, headers, 'POST', `/pty?${dir}`, { command: 'cat' })).id;
  ids.middleware = (await json(keel, headers, 'POST', '/api/middlewares', { name: 'fuzz', type: 'headers', config: { customRequestHeaders: { a: 'b' } } })).id;
  ids.service = (await json(keel, headers, 'POST', '/api/services', { name: 'fuzz', type: 'loadBalancer', config: { servers: [{ url: 'http://127.0.0.1:9' }] } })).id;
  pangolin.routers = { '1-fuzz-router': { rule: 'Host(`fuzz.example.com`)', service: '1-fuzz-service', entryPoints: ['websecure'], tls: { certResolver: 'letsencrypt' } } };
  await json(keel, headers, 'PUT', '/api/datasource/pangolin', { type: 'pangolin', url: `${pangolin.url}/` });
  await keel.keel.app.get(ResourceWatcher).syncOnce();
  const resources = (await json(keel, headers, 'GET', '/api/resources')) as { id: string }[];
  if (!resources.length) throw new Error('fixture: the Pangolin sync imported no resource');
  ids.resource = resources[0].id;
  ids.document = (await json(keel, headers, 'POST', '/v3/documents', { content: 'fuzz document', containerTag: 'fuzz' })).id;
  return { directory, ids };
}

async function fuzzServer(label: string, withCredentials: boolean): Promise<{ report: string; count: number; ms: number }> {
  const rng = new Prng(SEED + (withCredentials ? 1 : 0));
  const pangolin = await new FakeRoutingUpstream().start();
  const directory = tempDir('keel-fuzz-');
  execFileSync('git', ['init', '-q', '-b', 'trunk'], { cwd: directory });
  writeFileSync(join(directory, 'README.md'), '# fuzz\n');
  execFileSync('git', ['-c', 'user.email=f@example.com', '-c', 'user.name=f', 'commit', '-qam', 'root', '--allow-empty'], { cwd: directory });
  // What the server logs as an error (a 5xx's cause and stack) goes into the report; the log is silent otherwise.
  const logged: string[] = [];
  const errorLog = jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => void logged.push(JSON.stringify(message).slice(0, 1500)));
  const keel = await startKeel({ env: withCredentials ? { KEEL_SERVER_PASSWORD: PASSWORD, KEEL_API_KEYS: API_KEY } : {} });
  // A request naming no directory is served in the working directory: keep those writes out of the repository.
  const home = process.cwd();
  const scratch = tempDir('keel-fuzz-cwd-');
  process.chdir(scratch);
  const started = Date.now();
  try {
    const headers = credentialHeaders(withCredentials);
    const fx = await createFixtures(keel, headers, directory, pangolin);
    const doc = await json(keel, headers, 'GET', '/doc');
    const ops = operationsOf(doc as OpenApi).filter((op) => !(op.id in SKIPPED));
    const ordered = [
      ...ops.filter((op) => op.method !== 'DELETE' && !LAST.includes(op.id)),
      ...ops.filter((op) => op.method === 'DELETE'),
    ];
    const bodyVariants = withCredentials ? BODY_VARIANTS.filter(([variant]) => CREDENTIALED_BODY_VARIANTS.has(variant)) : BODY_VARIANTS;
    const requests = ordered.flatMap((op) => [...requestsFor(doc, op, fx, rng, headers, bodyVariants), ...(withCredentials && isSecured(op) ? credentialChecks(op, fx, rng) : [])]);
    const outcomes = await runPool(keel.url, requests, 3);
    // Last, the operations that tear the instance (or everything) down.
    for (const id of LAST) {
      const op = ops.find((o) => o.id === id);
      if (op) outcomes.push(...(await runPool(keel.url, requestsFor(doc, op, fx, rng, headers), 1)));
    }
    if (process.env.KEEL_FUZZ_STATS) process.stdout.write(`${formatStatuses(outcomes)}\n`);
    const report = formatFailures(SEED, label, outcomes);
    // The causes of the 5xx answers first (each answer names its request's ref), then the earliest others.
    const refs = [...report.matchAll(/ref ([0-9a-f-]{36})/g)].map((m) => m[1]);
    const causes = logged.filter((line) => refs.some((ref) => line.includes(ref)));
    const shown = [...causes, ...logged.filter((line) => !causes.includes(line))].slice(0, Math.max(5, causes.length));
    const errors = logged.length ? `\nthe server logged ${logged.length} error(s):\n${shown.join('\n')}` : '';
    return { report: report && report + errors, count: outcomes.length, ms: Date.now() - started };
  } finally {
    errorLog.mockRestore();
    process.chdir(home);
    rmSync(scratch, { recursive: true, force: true });
    await keel.close();
    await pangolin.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

describe(`fuzz: every operation of /doc (seed ${SEED})`, () => {
  // Each run sends about 3,500 requests, three at a time. Without credentials they reach the handlers and
  // do their work: that took 198–252 s on PostgreSQL and 97–225 s on SQLite on slow days of the 2-core CI machine.
  jest.setTimeout(480_000);

  it.each([
    ['without credentials', false],
    ['with a password and API keys', true],
  ])('answers every hostile request %s without a 5xx, a dropped connection or a foreign dialect', async (label, withCredentials) => {
    const { report, count, ms } = await fuzzServer(label, withCredentials);
    process.stdout.write(`fuzz ${label}: ${count} requests in ${ms} ms, seed ${SEED}; skipped: ${Object.entries(SKIPPED).map(([k, v]) => `${k} (${v})`).join(', ')}\n`);
    if (report) throw new Error(report);
  });
});
