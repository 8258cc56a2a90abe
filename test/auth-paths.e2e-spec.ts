import { request as httpRequest } from 'node:http';
import { startKeel, TestKeel } from './support/keel';

/**
 * Every operation of `/doc`, on each of the three surfaces, tried with spellings of its path that a
 * router might take for the same route (case, trailing slash, `//`, `%2F`, `;`, `\`, dot segments):
 * whatever the spelling, the other surface's credential (or none) never gets past 4xx, and the
 * credential decided for a spelling is the one of the handler the router serves it with.
 */

const PASSWORD = 'pw-secret';
const API_KEY = 'key-secret';
const basic = `Basic ${Buffer.from(`opencode:${PASSWORD}`).toString('base64')}`;
const bearer = `Bearer ${API_KEY}`;

type Surface = 'session' | 'memory' | 'routing';

/** design.md §1: which surface owns a route, by its documented path. */
function surfaceOfRoute(path: string): Surface {
  if (/^\/v[34]\//.test(path)) return 'memory';
  if (path.startsWith('/api/') || path === '/health') return 'routing';
  return 'session';
}

interface Reply {
  status: number;
  upgraded?: boolean;
}

/** One request with its path sent byte for byte (fetch would normalise it). Streams are cut at their headers. */
function send(base: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const url = new URL(base);
  const body = ['GET', 'HEAD', 'DELETE'].includes(method) ? undefined : '{}';
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      method,
      path,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}), connection: 'close' },
    });
    req.on('response', (res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.destroy();
    });
    req.on('upgrade', (res, socket) => {
      resolve({ status: res.statusCode ?? 0, upgraded: true });
      socket.destroy();
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Spellings of `path` (e.g. `/v3/documents/list`) that differ from it only in ways routers have been lax about. */
function variants(path: string): string[] {
  const [, first, ...rest] = path.split('/');
  const tail = rest.length ? `/${rest.join('/')}` : '';
  const out = [
    path.toUpperCase(),
    `/${first.toUpperCase()}${tail}`,
    `/${first[0].toUpperCase()}${first.slice(1)}${tail}`,
    `${path}/`,
    `/${path}`,
    `${path}//`,
    `/${first};x${tail}`,
    `${path};x`,
    `/${first}/./${rest.join('/')}`,
    `/x/../${first}${tail}`,
    `/%2e/${first}${tail}`,
    `/${first}%2e${tail}`,
    `${path}%20`,
    `${path}#x`,
  ];
  if (rest.length) {
    out.push(`/${first}%2F${rest.join('/')}`, `/${first}%2f${rest.join('/')}`, `/${first}//${rest.join('/')}`, `/${first}\\${rest.join('/')}#x`);
  }
  return [...new Set(out)].filter((v) => v !== path);
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

describe('auth on every surface, whatever the spelling of the path (password and API keys set)', () => {
  let keel: TestKeel;
  let operations: { method: string; path: string; surface: Surface }[];

  beforeAll(async () => {
    keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD, KEEL_API_KEYS: API_KEY } });
    const doc = (await (await fetch(`${keel.url}/doc`, { headers: { authorization: basic } })).json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    operations = Object.entries(doc.paths).flatMap(([template, item]) =>
      Object.keys(item)
        // Public by design, and documented so (`security: []`): the share page's three GET routes
        // (test/share.e2e-spec.ts checks they reach nothing else) and the console's sign-in routes
        // (test/hostile-origin.e2e-spec.ts).
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m) && item[m].security?.length !== 0)
        .map((m) => {
          const path = template.replace(/\{[^}]+\}/g, 'x1');
          return { method: m.toUpperCase(), path, surface: surfaceOfRoute(path) };
        }),
    );
  });

  afterAll(async () => {
    await keel.close();
  });

  it('leaves out exactly the public routes (share pages, console sign-in)', async () => {
    const doc = (await (await fetch(`${keel.url}/doc`, { headers: { authorization: basic } })).json()) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const open = Object.entries(doc.paths).flatMap(([template, item]) => Object.entries(item).filter(([, o]) => o.security?.length === 0).map(([m]) => `${m} ${template}`));
    expect(open.sort()).toEqual(['get /keel/auth', 'get /share/{shareID}', 'get /share/{shareID}/data', 'get /share/{shareID}/event', 'post /keel/login', 'post /keel/logout']);
  });

  it('lists operations of all three surfaces', () => {
    const count = (s: Surface) => operations.filter((o) => o.surface === s).length;
    expect(count('session')).toBeGreaterThan(50);
    expect(count('memory')).toBeGreaterThan(10);
    expect(count('routing')).toBeGreaterThan(10);
    expect(operations).toEqual(
      expect.arrayContaining([
        { method: 'POST', path: '/v3/documents/list', surface: 'memory' },
        { method: 'POST', path: '/v3/search', surface: 'memory' },
        { method: 'POST', path: '/v4/search', surface: 'memory' },
        { method: 'DELETE', path: '/v3/documents/bulk', surface: 'memory' },
        { method: 'GET', path: '/api/middlewares', surface: 'routing' },
        { method: 'GET', path: '/session', surface: 'session' },
      ]),
    );
  });

  it('refuses the other surface’s credential, and none, on the documented path of every operation', async () => {
    const failures: string[] = [];
    await inBatches(operations, 16, async ({ method, path, surface }) => {
      const wrong = surface === 'memory' ? basic : bearer;
      const tries: Record<string, string>[] = [{}, { authorization: wrong }, ...(surface === 'memory' ? [] : [{ 'x-api-key': API_KEY }])];
      for (const headers of tries) {
        const { status } = await send(keel.url, method, path, headers);
        if (status !== 401) failures.push(`${method} ${path} ${JSON.stringify(headers)} → ${status}`);
      }
    });
    expect(failures).toEqual([]);
  });

  it('never serves a variant spelling with the other surface’s credential, or none: 401 or a 4xx, never data', async () => {
    const cases = operations.flatMap((o) => variants(o.path).map((variant) => ({ ...o, variant })));
    const failures: string[] = [];
    await inBatches(cases, 16, async ({ method, variant, surface }) => {
      const wrong: Record<string, string> = surface === 'memory' ? { authorization: basic } : { authorization: bearer, 'x-api-key': API_KEY };
      for (const headers of [{}, wrong]) {
        const { status } = await send(keel.url, method, variant, headers);
        if (status < 400 || status >= 500) failures.push(`${method} ${variant} ${Object.keys(headers).join('+') || 'none'} → ${status}`);
      }
    });
    expect(failures).toEqual([]);
  });

  it('takes the right credential on the spellings the router serves (trailing slash, `\\…#`), so they are one route', async () => {
    for (const [method, path, credential] of [
      ['POST', '/v3/documents/list/', { authorization: bearer }],
      ['POST', '/v3\\documents/list#x', { 'x-api-key': API_KEY }],
      ['GET', '/api/middlewares/', { authorization: basic }],
      ['GET', '/health/', { authorization: basic }],
      ['GET', '/global/health/', { authorization: basic }],
    ] as const) {
      expect({ path, status: (await send(keel.url, method, path, credential)).status }).toEqual({ path, status: 200 });
    }
  });

  it('answers an unmatched spelling as an unknown route of the surface its spelling names', async () => {
    const upper = await fetch(`${keel.url}/V3/search`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: '{}' });
    expect(upper.status).toBeGreaterThanOrEqual(400);
    expect(upper.status).toBeLessThan(500);
    expect(await upper.json()).toHaveProperty('name');
    const keyed = await fetch(`${keel.url}/V3/search`, { method: 'POST', headers: { authorization: bearer, 'content-type': 'application/json' }, body: '{}' });
    expect(keyed.status).toBe(401);
    const routing = await fetch(`${keel.url}/API/middlewares`, { headers: { authorization: basic } });
    expect(routing.status).toBeGreaterThanOrEqual(400);
    expect(routing.status).toBeLessThan(500);
  });

  it('opens a terminal WebSocket only on its exact path and only with the password', async () => {
    const upgrade = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
    const failures: string[] = [];
    for (const path of ['/pty/x1/connect', '/PTY/x1/connect', '/pty/x1/CONNECT', '//pty/x1/connect', '//keel/pty/x1/connect', '/pty%2Fx1/connect', '/pty/x1/connect;x']) {
      for (const credential of [{}, { authorization: bearer }, { 'x-api-key': API_KEY }] as Record<string, string>[]) {
        const reply = await send(keel.url, 'GET', path, { ...upgrade, ...credential });
        if (reply.upgraded || ![401, 404].includes(reply.status)) failures.push(`${path} ${Object.keys(credential).join() || 'none'} → ${reply.status}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
