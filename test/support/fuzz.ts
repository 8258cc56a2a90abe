import { Agent, request as httpRequest } from 'node:http';
import { surfaceOfPath } from '../../src/common/surface';

/**
 * A small HTTP fuzzer driven by the server's own OpenAPI document (`/doc`): for every operation it
 * builds valid-ish requests from the path template, the query parameters and the request body
 * schema, then mutates them (path spelling, NUL, deep nesting, huge values, non-finite numbers,
 * wrong types) and checks what every client may rely on: no 5xx, no dropped connection, an error
 * body in the dialect of the surface the path belongs to, and an error body of bounded size.
 * Everything random comes from one seeded PRNG, so a seed replays the same requests.
 */

export type Surface = 'session' | 'memory' | 'routing';

export interface OpenApiOperation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
export type Schema = Record<string, unknown>;
export interface OpenApi {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, Schema> };
}

export interface Operation {
  id: string;
  method: string;
  template: string;
  surface: Surface;
  operation: OpenApiOperation;
}

export interface FuzzRequest {
  op: Operation;
  /** What was varied, e.g. `path:uppercase`, `body:nul-string`; the failure report groups by it. */
  variant: string;
  method: string;
  /** Raw path and query as sent on the request line. */
  path: string;
  /** Raw body text (already serialised), if any. */
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Statuses the answer must be within, beyond "not 5xx" (used by the credential checks). */
  expectStatus?: (status: number) => boolean;
}

export interface FuzzOutcome {
  request: FuzzRequest;
  status?: number;
  bodySize?: number;
  bodyStart?: string;
  failure?: string;
  ms?: number;
}

/** mulberry32: small, fast, and good enough to pick variants reproducibly. */
export class Prng {
  private state: number;
  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** The surface of a documented path: the server's own rule (opencode's `/api/*` routes are session routes). */
export function surfaceOf(path: string): Surface {
  return surfaceOfPath(path);
}

/** Every HTTP operation of the document. */
export function operationsOf(doc: OpenApi): Operation[] {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push({ id: operation.operationId ?? `${method} ${template}`, method: method.toUpperCase(), template, surface: surfaceOf(template), operation });
    }
  }
  return ops;
}

// ---------------------------------------------------------------------------------------------
// Dialects

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when `body` is an error body of `surface`'s dialect (design.md §1). */
export function inDialect(surface: Surface, body: unknown): boolean {
  if (!isObject(body)) return false;
  switch (surface) {
    case 'session':
      if (Array.isArray(body.error) && body.success === false && 'data' in body) return true;
      return typeof body.name === 'string' && isObject(body.data);
    case 'memory':
      return typeof body.error === 'string' && (body.details === undefined || typeof body.details === 'string');
    case 'routing':
      return typeof body.code === 'number' && typeof body.message === 'string';
  }
}

// ---------------------------------------------------------------------------------------------
// Values from schemas

/** A value that should satisfy `schema` (or come close): the starting point of body mutations. */
export function sampleSchema(doc: OpenApi, schema: Schema | undefined, rng: Prng, depth = 0): unknown {
  if (!schema || depth > 8) return undefined;
  const ref = schema.$ref as string | undefined;
  if (ref) return sampleSchema(doc, doc.components?.schemas?.[ref.replace('#/components/schemas/', '')], rng, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return rng.pick(schema.enum);
  if ('default' in schema && rng.chance(0.3)) return schema.default;
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (choices?.length) return sampleSchema(doc, rng.chance(0.6) ? choices[0] : rng.pick(choices), rng, depth + 1);
  if (Array.isArray(schema.allOf)) {
    const merged: Record<string, unknown> = {};
    for (const part of schema.allOf as Schema[]) {
      const value = sampleSchema(doc, part, rng, depth + 1);
      if (isObject(value)) Object.assign(merged, value);
    }
    return merged;
  }
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? 'null';
  if (!type && schema.properties) type = 'object';
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [name, sub] of Object.entries(properties)) {
        if (!required.has(name) && !rng.chance(0.4)) continue;
        const value = sampleSchema(doc, sub, rng, depth + 1);
        if (value !== undefined) out[name] = value;
      }
      return out;
    }
    case 'array': {
      const n = Math.max((schema.minItems as number | undefined) ?? 0, rng.int(3));
      return Array.from({ length: n }, () => sampleSchema(doc, schema.items as Schema, rng, depth + 1)).filter((v) => v !== undefined);
    }
    case 'string':
      if (schema.format === 'uri' || schema.format === 'url') return 'http://127.0.0.1:9/fuzz';
      return 'x'.repeat(Math.max((schema.minLength as number | undefined) ?? 1, 4)).replace(/^x{4}/, 'fuzz');
    case 'integer':
      return (schema.minimum) ?? 1;
    case 'number':
      return (schema.minimum) ?? 1.5;
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    default:
      return 'fuzz';
  }
}

type JsonPath = (string | number)[];

/** Every path inside `value` (objects and arrays), leaves and containers, root excluded. */
function pathsOf(value: unknown, prefix: JsonPath = [], out: JsonPath[] = []): JsonPath[] {
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : isObject(value) ? Object.entries(value) : [];
  for (const [key, v] of entries) {
    out.push([...prefix, key]);
    pathsOf(v, [...prefix, key], out);
  }
  return out;
}

function getAt(value: unknown, path: JsonPath): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)?.[k], value);
}

/** `value` with the thing at `path` replaced (a fresh copy; the root when `path` is empty). */
function setAt(value: unknown, path: JsonPath, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]] = replacement;
  return copy;
}

/** Placeholder for number tokens JSON.stringify cannot write (`1e309` parses to Infinity). */
const RAW = '@@fuzz-raw@@';
function serialise(value: unknown): string {
  return JSON.stringify(value).replace(new RegExp(`"${RAW}([^"]*)"`, 'g'), '$1');
}

function deepValue(levels: number, rng: Prng): string {
  return rng.chance(0.5) ? '['.repeat(levels) + ']'.repeat(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

export const HUGE_STRING_BYTES = 5 * 1024 * 1024;
export const HUGE_ARRAY_ITEMS = 1_000_000;
export const DEEP_LEVELS = 5_000;
export const HUGE_OBJECT_KEYS = 200_000;

export type BodyVariant =
  | 'valid'
  | 'drop-field'
  | 'extra-field'
  | 'wrong-type'
  | 'nul-string'
  | 'non-finite'
  | 'deep'
  | 'huge-string'
  | 'huge-array'
  | 'huge-object'
  | 'root-not-object'
  | 'malformed-json'
  | 'text-plain'
  | 'urlencoded'
  | 'multipart'
  | 'bad-charset'
  | 'bad-encoding';

/** A mutated body (serialised) for `variant`, from the valid-ish `base`. */
export function mutateBody(base: unknown, variant: BodyVariant, rng: Prng): { body: string; contentType: string; headers?: Record<string, string> } {
  const json = 'application/json';
  const paths = pathsOf(base);
  const anyPath = (): JsonPath => (paths.length ? rng.pick(paths) : isObject(base) ? ['fuzz'] : []);
  const pathOfType = (type: string): JsonPath => {
    const matching = paths.filter((p) => typeof getAt(base, p) === type);
    return matching.length ? rng.pick(matching) : anyPath();
  };
  switch (variant) {
    case 'valid':
      return { body: serialise(base), contentType: json };
    case 'drop-field': {
      const keys = isObject(base) ? Object.keys(base) : [];
      if (!keys.length) return { body: '{}', contentType: json };
      const copy = { ...(base as Record<string, unknown>) };
      delete copy[rng.pick(keys)];
      return { body: serialise(copy), contentType: json };
    }
    case 'extra-field':
      return { body: serialise(isObject(base) ? { ...base, fuzzUnknownField: 1 } : base), contentType: json };
    case 'wrong-type': {
      const wrong = rng.pick<unknown>([null, true, 0, -1, 1.5, 'str', '', [], {}, [1, 'a'], { a: 1 }, 2 ** 64, -(2 ** 53)]);
      return { body: serialise(setAt(base, anyPath(), wrong)), contentType: json };
    }
    case 'nul-string':
      return { body: serialise(setAt(base, pathOfType('string'), rng.pick(['a\u0000b', '\u0000', 'fuzz\u0000']))), contentType: json };
    case 'non-finite':
      return { body: serialise(setAt(base, pathOfType('number'), RAW + rng.pick(['1e309', '-1e309', '1e-400', '-0', '123456789012345678901234567890']))), contentType: json };
    case 'deep': {
      const marker = `${RAW}DEEP`;
      return { body: serialise(setAt(base, anyPath(), marker)).replace('DEEP', deepValue(DEEP_LEVELS, rng)), contentType: json };
    }
    case 'huge-string':
      return { body: serialise(setAt(base, pathOfType('string'), 'h'.repeat(HUGE_STRING_BYTES))), contentType: json };
    case 'huge-array': {
      const marker = `${RAW}HUGE`;
      const items = new Array<string>(HUGE_ARRAY_ITEMS).fill('0').join(',');
      return { body: serialise(setAt(base, anyPath(), marker)).replace('HUGE', `[${items}]`), contentType: json };
    }
    case 'huge-object': {
      // Beside an existing object when there is one: merges (config, metadata) walk every key.
      const objects = paths.filter((p) => isObject(getAt(base, p)));
      const marker = `${RAW}WIDE`;
      const keys = Array.from({ length: HUGE_OBJECT_KEYS }, (_, i) => `"k${i}":${i % 2 ? '"v"' : '{"a":1}'}`).join(',');
      return { body: serialise(setAt(base, objects.length ? rng.pick(objects) : anyPath(), marker)).replace('WIDE', `{${keys}}`), contentType: json };
    }
    case 'root-not-object':
      return { body: rng.pick(['null', '[]', '"fuzz"', '42', 'true', '[{}]']), contentType: json };
    case 'malformed-json':
      return { body: rng.pick(['{', '{"a":}', "{'a':1}", '', '\u0000', '{"a":1}garbage']), contentType: json };
    case 'text-plain':
      return { body: serialise(base), contentType: 'text/plain' };
    case 'urlencoded':
      return {
        body: rng.pick(['a[b][c][d][e][f][g][h]=1', `${'a'.repeat(3)}${'[a]'.repeat(2000)}=1`, 'content=a%00b&containerTag=x', 'x=1&x=2&x[y]=3', '%FF=%FF']),
        contentType: 'application/x-www-form-urlencoded',
      };
    case 'multipart':
      return {
        body: rng.pick([
          '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--xx--\r\n',
          '--xx\r\nContent-Disposition: form-data; name="file"; filename="a\u0000.txt"\r\n\r\nhello\r\n--xx\r\nContent-Disposition: form-data; name="containerTags"\r\n\r\n[1e309]\r\n--xx--\r\n',
          '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello', '--xx--', 'garbage', '--xx\r\n\r\n']),
        contentType: rng.pick(['multipart/form-data; boundary=xx', 'multipart/form-data']),
      };
    case 'bad-charset':
      return { body: serialise(base), contentType: rng.pick(['application/json; charset=utf-7', 'application/json; charset=nonsense']) };
    case 'bad-encoding':
      return { body: serialise(base), contentType: json, headers: { 'content-encoding': rng.pick(['gzip', 'deflate', 'br', 'nonsense']) } };
  }
}

// ---------------------------------------------------------------------------------------------
// Paths and queries

export type PathVariant = 'uppercase' | 'trailing-slash' | 'double-slash' | 'encoded-slash' | 'semicolon';

/** `path` (no query) spelled another way a careless client or an attacker might. */
export function varyPath(path: string, variant: PathVariant, rng: Prng): string {
  const slashes = [...path.matchAll(/\//g)].map((m) => m.index);
  const inner = slashes.filter((i) => i > 0);
  switch (variant) {
    case 'uppercase':
      return rng.chance(0.5) ? path.toUpperCase() : path.replace(/\/([a-z])/, (_m, c: string) => `/${c.toUpperCase()}`);
    case 'trailing-slash':
      return `${path}/`;
    case 'double-slash': {
      const at = rng.pick(slashes);
      return `${path.slice(0, at)}/${path.slice(at)}`;
    }
    case 'encoded-slash': {
      if (!inner.length) return `${path}%2F`;
      const at = rng.pick(inner);
      return `${path.slice(0, at)}%2F${path.slice(at + 1)}`;
    }
    case 'semicolon':
      return rng.chance(0.5) ? `${path};x` : path.replace(/\/([^/]+)$/, '/$1;jsessionid=1');
  }
}

/** Hostile spellings of one path parameter (already encoded for the request line). */
export const PATH_PARAM_VARIANTS = [
  '%00',
  'ses%00x',
  'a'.repeat(4000),
  '%2E%2E',
  '..%2F..%2Fetc',
  '%C3%A9t%C3%A9',
  '%FF',
  '%E0%A4%A',
  ' ',
  '-1',
  '1e309',
  'null',
];

/** Hostile values of one query parameter; `numeric` for the parameters that hold numbers. */
export function queryValues(numeric: boolean): string[] {
  const common = ['', '%00', 'a%00b', 'x'.repeat(6000), '%FF', '[object%20Object]'];
  return numeric ? [...common, '1e309', '-1e309', 'Infinity', '-Infinity', 'NaN', '-1', '0', '1.5', 'abc', '99999999999999999999999', '0x10'] : common;
}

// ---------------------------------------------------------------------------------------------
// Sending

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/** The largest error body a client should ever receive; anything bigger echoes input. */
export const MAX_ERROR_BODY = 64 * 1024;

export function send(base: string, req: FuzzRequest, timeoutMs: number): Promise<FuzzOutcome> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) {
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(req.body);
    }
    let done = false;
    const sent = Date.now();
    const finish = (outcome: Omit<FuzzOutcome, 'request'>) => {
      if (done) return;
      done = true;
      resolve({ request: req, ms: Date.now() - sent, ...outcome });
    };
    let clientRequest: ReturnType<typeof httpRequest>;
    try {
      clientRequest = httpRequest({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent });
    } catch (error) {
      // The fuzzer built a request line Node itself refuses: not the server's fault.
      return finish({ status: 0, failure: undefined, bodyStart: `not sent: ${(error as Error).message}` });
    }
    clientRequest.setTimeout(timeoutMs, () => {
      finish({ failure: `no answer within ${timeoutMs} ms` });
      clientRequest.destroy();
    });
    clientRequest.on('error', (error: NodeJS.ErrnoException) => finish({ failure: `connection dropped (${error.code ?? error.message})` }));
    clientRequest.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_ERROR_BODY + 1024) chunks.push(c);
      });
      res.on('error', (error: NodeJS.ErrnoException) => finish({ status: res.statusCode, failure: `response cut (${error.code ?? error.message})` }));
      res.on('aborted', () => finish({ status: res.statusCode, failure: 'response aborted' }));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        finish({ status: res.statusCode, bodySize: size, bodyStart: text.slice(0, 300), failure: judge(req, res.statusCode ?? 0, size, text, res.headers['content-type']) });
      });
    });
    clientRequest.end(req.body);
  });
}

/** Why the answer is wrong, or undefined when it is acceptable. */
function judge(req: FuzzRequest, status: number, size: number, text: string, contentType: string | undefined): string | undefined {
  if (status >= 500) return `status ${status}`;
  if (req.expectStatus && !req.expectStatus(status)) return `status ${status} (credential check)`;
  if (status < 400) return undefined;
  if (size > MAX_ERROR_BODY) return `error body of ${size} bytes`;
  const expected = req.op.surface;
  // A path spelled so that no route matches belongs to no surface: its 404 (or the password's 401,
  // asked before routing) may come in the default, session, dialect.
  const respelled = req.variant.startsWith('path:') || (req.variant.startsWith('auth:') && !req.variant.startsWith('auth:canonical'));
  const accepted: Surface[] = respelled && (status === 404 || status === 401) ? [expected, 'session'] : [expected];
  // A refused password is the reference's bare 401 with WWW-Authenticate (browsers prompt on it).
  if (status === 401 && size === 0 && accepted.some((s) => s !== 'memory')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `non-JSON error body (${contentType ?? 'no content-type'})`;
  }
  if (accepted.some((s) => inDialect(s, body))) return undefined;
  return `not the ${expected} dialect`;
}

// ---------------------------------------------------------------------------------------------
// Reporting

/** Failures grouped by operation, variant and class; the first few of each group in full. */
export function formatFailures(seed: number, label: string, outcomes: FuzzOutcome[], perGroup = 2, maxGroups = Number(process.env.KEEL_FUZZ_MAX_GROUPS ?? 40)): string {
  const failures = outcomes.filter((o) => o.failure);
  if (!failures.length) return '';
  const groups = new Map<string, FuzzOutcome[]>();
  for (const f of failures) {
    const cls = f.failure!.replace(/\d{3,}/g, 'N');
    const key = `${f.request.op.id} [${f.request.variant}] ${cls}`;
    const list = groups.get(key) ?? [];
    list.push(f);
    groups.set(key, list);
  }
  const lines = [`fuzz ${label}: ${failures.length} of ${outcomes.length} requests failed in ${groups.size} groups (seed ${seed}; rerun with KEEL_FUZZ_SEED=${seed})`];
  for (const [key, list] of [...groups].slice(0, maxGroups)) {
    lines.push(`- ${key} ×${list.length}`);
    for (const f of list.slice(0, perGroup)) {
      const body = f.request.body === undefined ? '' : ` body(${f.request.body.length}b)=${f.request.body.slice(0, 120).replace(/\u0000/g, '\\u0000')}`;
      lines.push(`    ${f.request.method} ${f.request.path.slice(0, 160)}${body} → ${f.status ?? '-'} ${(f.bodyStart ?? '').slice(0, 160)}`);
    }
  }
  if (groups.size > maxGroups) lines.push(`… and ${groups.size - maxGroups} more groups`);
  return lines.join('\n');
}

/** Per operation, how many answers had each status (with KEEL_FUZZ_STATS=1): shows which handlers the valid-ish requests reach. */
export function formatStatuses(outcomes: FuzzOutcome[]): string {
  const byOp = new Map<string, Map<string, number>>();
  for (const o of outcomes) {
    const counts = byOp.get(o.request.op.id) ?? new Map<string, number>();
    const key = String(o.status ?? 'none');
    counts.set(key, (counts.get(key) ?? 0) + 1);
    byOp.set(o.request.op.id, counts);
  }
  const slowest = [...outcomes].sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0)).slice(0, 8);
  return [
    ...[...byOp].map(([id, counts]) => `${id}: ${[...counts].map(([s, n]) => `${s}×${n}`).join(' ')}`),
    ...slowest.map((o) => `slow ${o.ms} ms: ${o.request.op.id} [${o.request.variant}] ${o.request.method} ${o.request.path.slice(0, 100)} → ${o.status}`),
  ].join('\n');
}
