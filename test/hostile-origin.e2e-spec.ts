import { request } from 'node:http';
import WebSocket from 'ws';
import { expectMemoryError, expectRoutingError } from './support/error-bodies';
import { startKeel, tempDir, TestKeel } from './support/keel';

/**
 * Keel as a hostile web page sees it (design.md §6): the user runs Keel on loopback and opens any page.
 * The page can submit forms, send `text/plain` or `no-cors` requests without a preflight, rebind its own
 * name to 127.0.0.1, and open WebSockets. None of that may change anything, on any surface, with or
 * without credentials; Keel's own console, loopback pages and the official clients keep working.
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

const PASSWORD = 'hostile-secret';
const API_KEY = 'hostile-key';
const EVIL = 'http://evil.example';

/** A raw HTTP request: every header as given (Host and Origin included), as a browser would send them. */
function send(keel: TestKeel, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const url = new URL(path, keel.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // HTML or empty
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The surface's error dialect, naming `words` (design.md §1). */
function expectRefusal(answer: Answer, surface: 'session' | 'memory' | 'routing', status: number, words: RegExp): void {
  expect(answer.status).toBe(status);
  if (surface === 'session') expect(answer.body).toEqual({ name: expect.any(String), data: { message: expect.stringMatching(words) } });
  if (surface === 'memory') expectMemoryError(answer.body, { error: words, details: null });
  if (surface === 'routing') expectRoutingError(answer.body, status, words);
}

describe.each([
  ['without credentials (the default)', {}],
  ['with a password and API keys', { KEEL_SERVER_PASSWORD: PASSWORD, KEEL_API_KEYS: API_KEY }],
])('a hostile web page against a loopback Keel %s', (_label, credentials: Record<string, string>) => {
  let keel: TestKeel;
  let dir: string;
  const secured = Object.keys(credentials).length > 0;
  // What the user's own browser holds for Keel: a page of another site makes the browser attach it
  // (cached Basic credentials), and with a leaked token it could send it too.
  const auth: Record<string, string> = secured ? { authorization: `Basic ${Buffer.from(`opencode:${PASSWORD}`).toString('base64')}`, 'x-api-key': API_KEY } : {};
  const origin = () => keel.url;

  beforeAll(async () => {
    dir = tempDir('keel-hostile-');
    keel = await startKeel({ env: { ...credentials, KEEL_CORS: 'https://app.example.test' } });
  });
  afterAll(() => keel?.close());

  const sessions = async () => (await send(keel, 'GET', `/session?directory=${encodeURIComponent(dir)}`, auth)).body as { id: string; share?: unknown }[];
  const middlewares = async () => (await send(keel, 'GET', '/api/middlewares', auth)).body as { name: string }[];
  const ptys = async () => (await send(keel, 'GET', `/pty?directory=${encodeURIComponent(dir)}`, auth)).body as unknown[];
  const documents = async () => (await send(keel, 'POST', '/v3/documents/list', { ...auth, 'content-type': 'application/json' }, '{}')).body as { memories: unknown[] };

  describe('cross-site requests change nothing', () => {
    it('a form POST to /pty with command=/bin/sh is refused before anything runs (403, session dialect)', async () => {
      const form = 'command=%2Fbin%2Fsh&args%5B0%5D=-c&args%5B1%5D=touch+%2Ftmp%2Fkeel-pwned';
      const answer = await send(keel, 'POST', `/pty?directory=${encodeURIComponent(dir)}`, { ...auth, origin: EVIL, 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' }, form);
      expectRefusal(answer, 'session', 403, /Cross-site request refused: origin http:\/\/evil\.example/);
      expect(await ptys()).toEqual([]);
    });

    it('a form to the routing manager and a text/plain POST to the memory API are refused in their dialects', async () => {
      const before = (await middlewares()).length;
      const form = 'id=evil&name=evil&type=redirectRegex&config%5Bregex%5D=.*&config%5Breplacement%5D=https%3A%2F%2Fevil.example';
      expectRefusal(await send(keel, 'POST', '/api/middlewares', { ...auth, origin: EVIL, 'content-type': 'application/x-www-form-urlencoded' }, form), 'routing', 403, /origin http:\/\/evil\.example is not allowed/);
      expect(await middlewares()).toHaveLength(before);
      expectRefusal(await send(keel, 'POST', '/v3/documents', { ...auth, origin: EVIL, 'content-type': 'text/plain' }, '{"content":"planted"}'), 'memory', 403, /origin http:\/\/evil\.example is not allowed/);
      expect((await documents()).memories).toEqual([]);
    });

    it('bodiless no-cors POSTs (share, abort, dispose) are refused by Origin alone', async () => {
      const created = await send(keel, 'POST', `/session?directory=${encodeURIComponent(dir)}`, { ...auth, 'content-type': 'application/json' }, '{}');
      expect(created.status).toBe(200);
      const id = created.body.id as string;
      for (const path of [`/session/${id}/share`, `/session/${id}/abort`, '/instance/dispose', '/global/dispose']) {
        const answer = await send(keel, 'POST', `${path}?directory=${encodeURIComponent(dir)}`, { ...auth, origin: EVIL, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' });
        expect([path, answer.status]).toEqual([path, 403]);
      }
      expect((await sessions()).find((s) => s.id === id)?.share).toBeUndefined();
      // A browser that sends Sec-Fetch-Site but no Origin is refused too; `Origin: null` (a sandboxed frame, a file:// page) likewise.
      expect((await send(keel, 'POST', `/session/${id}/share?directory=${encodeURIComponent(dir)}`, { ...auth, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect((await send(keel, 'POST', `/session/${id}/share?directory=${encodeURIComponent(dir)}`, { ...auth, origin: 'null' })).status).toBe(403);
      expect((await sessions()).find((s) => s.id === id)?.share).toBeUndefined();
    });

    it('PUT, PATCH and DELETE from another site are refused the same way', async () => {
      const before = await middlewares();
      expect((await send(keel, 'DELETE', `/api/middlewares/${encodeURIComponent((before[0] as unknown as { id: string }).id)}`, { ...auth, origin: EVIL })).status).toBe(403);
      expect(await middlewares()).toEqual(before);
      expect((await send(keel, 'PATCH', `/config?directory=${encodeURIComponent(dir)}`, { ...auth, origin: EVIL, 'content-type': 'application/json' }, '{"model":"evil/model"}')).status).toBe(403);
      expect((await send(keel, 'PUT', '/auth/anthropic', { ...auth, origin: EVIL, 'content-type': 'application/json' }, '{"type":"api","key":"evil"}')).status).toBe(403);
    });
  });

  describe('bodies are JSON (multipart where an API takes files), whoever sends them', () => {
    it.each([
      ['/session', 'session', 'text/plain'],
      ['/api/middlewares', 'routing', 'application/x-www-form-urlencoded'],
      ['/v3/documents', 'memory', 'text/plain'],
      ['/v3/documents', 'memory', 'multipart/form-data; boundary=x'],
    ] as const)('POST %s with %s is a 415 naming content-type', async (path, surface, type) => {
      const before = (await sessions()).length;
      const answer = await send(keel, 'POST', `${path}?directory=${encodeURIComponent(dir)}`, { ...auth, 'content-type': type }, '{"content":"x","name":"x"}');
      expectRefusal(answer, surface, 415, /^content-type: /);
      expect(await sessions()).toHaveLength(before);
    });

    it('multipart is taken where the API takes files', async () => {
      const form = new FormData();
      form.append('file', new Blob(['the harbour master keeps the lighthouse key'], { type: 'text/plain' }), 'note.txt');
      const res = await fetch(`${keel.url}/v3/documents/file`, { method: 'POST', headers: auth, body: form });
      expect(res.status).toBe(200);
    });
  });

  describe('the pages and clients that belong keep working', () => {
    it.each([
      ['the console (its own origin)', () => ({ origin: origin(), 'sec-fetch-site': 'same-origin' })],
      ['a loopback page on another port', () => ({ origin: 'http://localhost:5173', 'sec-fetch-site': 'same-site' })],
      ['an [::1] page', () => ({ origin: 'http://[::1]:3000', 'sec-fetch-site': 'cross-site' })],
      ['the Tauri app', () => ({ origin: 'tauri://localhost', 'sec-fetch-site': 'cross-site' })],
      ['an origin in KEEL_CORS', () => ({ origin: 'https://app.example.test', 'sec-fetch-site': 'cross-site' })],
      ['an SDK, a TUI or curl (no Origin)', () => ({})],
    ])('%s may create a session', async (_who, headers) => {
      const answer = await send(keel, 'POST', `/session?directory=${encodeURIComponent(dir)}`, { ...auth, ...headers(), 'content-type': 'application/json' }, '{}');
      expect(answer.status).toBe(200);
      expect(answer.body.id).toMatch(/^ses_/);
    });

    it('CORS answers trusted origins only', async () => {
      const preflight = (o: string) => send(keel, 'OPTIONS', '/session', { origin: o, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' });
      expect((await preflight('http://localhost:5173')).headers['access-control-allow-origin']).toBe('http://localhost:5173');
      expect((await preflight('https://app.example.test')).headers['access-control-allow-origin']).toBe('https://app.example.test');
      expect((await preflight(EVIL)).headers['access-control-allow-origin']).toBeUndefined();
      expect((await preflight('https://app.opencode.ai')).headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('DNS rebinding: only loopback Host names are served', () => {
    it.each([
      ['/session', 'session'],
      ['/api/middlewares', 'routing'],
      ['/v3/search', 'memory'],
      ['/ui/', 'session'],
      ['/doc', 'session'],
    ] as const)('GET %s with Host: attacker.example is a 403 naming KEEL_ALLOWED_HOSTS', async (path, surface) => {
      const answer = await send(keel, 'GET', path, { ...auth, host: `attacker.example:${new URL(keel.url).port}` });
      expectRefusal(answer, surface, 403, /KEEL_ALLOWED_HOSTS/);
    });

    it('loopback names are served on any port', async () => {
      for (const host of ['localhost:1234', '127.0.0.1', '[::1]:80', 'LOCALHOST']) {
        expect([host, (await send(keel, 'GET', '/global/health', { ...auth, host })).status]).toEqual([host, 200]);
      }
    });
  });

  describe('the terminal WebSocket checks Origin before it opens', () => {
    const connect = (path: string, headers: Record<string, string>) =>
      new Promise<{ status: number; body: string } | 'open'>((resolve, reject) => {
        const socket = new WebSocket(`${keel.url.replace('http', 'ws')}${path}`, { headers });
        const timer = setTimeout(() => reject(new Error('no answer to the upgrade')), 10_000);
        socket.once('open', () => {
          clearTimeout(timer);
          socket.close();
          resolve('open');
        });
        socket.once('error', () => undefined);
        socket.once('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, body });
          });
        });
      });

    it('a foreign Origin is refused (even with the credential), the console\'s own origin opens', async () => {
      const created = await send(keel, 'POST', `/pty?directory=${encodeURIComponent(dir)}`, { ...auth, 'content-type': 'application/json' }, JSON.stringify({ command: '/bin/sh' }));
      expect(created.status).toBe(200);
      const token = secured ? `&auth_token=${Buffer.from(`opencode:${PASSWORD}`).toString('base64')}` : '';
      const path = `/pty/${created.body.id}/connect?directory=${encodeURIComponent(dir)}${token}`;
      const refused = await connect(path, { origin: EVIL });
      expect(refused).toEqual({ status: 403, body: expect.stringMatching(/origin http:\/\/evil\.example is not allowed/) });
      expect(await connect(path, { origin: origin() })).toBe('open');
      expect(await connect(path, { origin: origin(), host: 'attacker.example' })).toEqual({ status: 403, body: expect.stringMatching(/KEEL_ALLOWED_HOSTS/) });
      await send(keel, 'DELETE', `/pty/${created.body.id}?directory=${encodeURIComponent(dir)}`, auth);
    });
  });

  describe('framing and sniffing are forbidden on every answer', () => {
    it.each(['/ui/', '/ui/sessions', '/global/health', '/api/middlewares', '/v3/search', '/doc', '/docs'])('%s', async (path) => {
      const answer = await send(keel, 'GET', path, auth);
      expect(answer.headers['x-frame-options']).toBe('DENY');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      if (path.startsWith('/ui/')) expect(answer.headers['content-security-policy']).toMatch(/script-src 'self';/);
    });
  });
});

describe('Host names an operator allows', () => {
  it('KEEL_ALLOWED_HOSTS and KEEL_PUBLIC_URL names are served; others are not', async () => {
    const keel = await startKeel({ env: { KEEL_ALLOWED_HOSTS: 'keel.internal, [fd00::5]', KEEL_PUBLIC_URL: 'https://keel.example.test/base' } });
    try {
      for (const host of ['keel.internal', 'keel.internal:8443', 'keel.example.test', '[fd00::5]:4096']) {
        expect([host, (await send(keel, 'GET', '/global/health', { host })).status]).toEqual([host, 200]);
      }
      expect((await send(keel, 'GET', '/global/health', { host: 'keel.internal.attacker.example' })).status).toBe(403);
      // The public URL's origin is the server's own when a proxy serves it under that name.
      const created = await send(keel, 'POST', '/session', { host: 'keel.example.test', origin: 'https://keel.example.test', 'content-type': 'application/json' }, '{}');
      expect(created.status).toBe(200);
    } finally {
      await keel.close();
    }
  });
});

describe("the console's sign-in cookie against other pages", () => {
  let keel: TestKeel;
  let dir: string;
  let cookie: string;
  beforeAll(async () => {
    dir = tempDir('keel-hostile-cookie-');
    keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD, KEEL_API_KEYS: API_KEY } });
    const own = { origin: keel.url, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' };
    // Signing in is a state change like any other: another site cannot sign the browser in (login CSRF).
    expect((await send(keel, 'POST', '/keel/login', { ...own, origin: EVIL, 'sec-fetch-site': 'cross-site' }, JSON.stringify({ password: PASSWORD }))).status).toBe(403);
    const login = await send(keel, 'POST', '/keel/login', own, JSON.stringify({ password: PASSWORD }));
    expect(login.status).toBe(200);
    const set = String(login.headers['set-cookie']);
    expect(set).toMatch(/^keel_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200/);
    cookie = set.split(';')[0];
  });
  afterAll(() => keel?.close());

  const sessionCount = async () => ((await send(keel, 'GET', `/session?directory=${encodeURIComponent(dir)}`, { cookie })).body as unknown[]).length;
  const create = (headers: Record<string, string>) => send(keel, 'POST', `/session?directory=${encodeURIComponent(dir)}`, { cookie, 'content-type': 'application/json', ...headers }, '{}');

  it('a cross-site POST carrying the cookie is refused before anything runs (403), and changes nothing', async () => {
    const before = await sessionCount();
    expectRefusal(await create({ origin: EVIL, 'sec-fetch-site': 'cross-site' }), 'session', 403, /origin http:\/\/evil\.example is not allowed/);
    expect((await send(keel, 'POST', '/api/middlewares', { cookie, origin: EVIL, 'content-type': 'application/x-www-form-urlencoded' }, 'id=evil')).status).toBe(403);
    expect(await sessionCount()).toBe(before);
  });

  it('a same-site page of another origin (a loopback page on another port), trusted with the password, cannot borrow the cookie (401)', async () => {
    const before = await sessionCount();
    expect((await create({ origin: 'http://localhost:5173', 'sec-fetch-site': 'same-site' })).status).toBe(401);
    expect((await create({ origin: 'http://localhost:5173' })).status).toBe(401);
    expect((await send(keel, 'GET', '/session', { cookie, 'sec-fetch-site': 'same-site' })).status).toBe(401);
    expect(await sessionCount()).toBe(before);
  });

  it("the console's own pages (and tools holding it) are signed in; the memory surface still wants its API key", async () => {
    expect((await create({ origin: keel.url, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await create({})).status).toBe(200);
    expect((await send(keel, 'GET', '/keel/auth', { cookie, 'sec-fetch-site': 'same-origin' })).body).toEqual({ passwordRequired: true, signedIn: true, expiresAt: expect.any(Number) });
    expect((await send(keel, 'POST', '/v3/search', { cookie, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' }, '{"q":"x"}')).status).toBe(401);
  });

  it('the terminal WebSocket takes the cookie from its own page only', async () => {
    const created = await send(keel, 'POST', `/pty?directory=${encodeURIComponent(dir)}`, { cookie, 'content-type': 'application/json' }, JSON.stringify({ command: '/bin/sh' }));
    expect(created.status).toBe(200);
    const path = `/pty/${created.body.id}/connect?directory=${encodeURIComponent(dir)}`;
    const connect = (headers: Record<string, string>) =>
      new Promise<number | 'open'>((resolve) => {
        const socket = new WebSocket(`${keel.url.replace('http', 'ws')}${path}`, { headers: { cookie, ...headers } });
        socket.once('open', () => {
          socket.close();
          resolve('open');
        });
        socket.once('error', () => undefined);
        socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      });
    expect(await connect({ origin: EVIL })).toBe(403);
    expect(await connect({ origin: 'http://localhost:5173' })).toBe(401);
    expect(await connect({ origin: keel.url })).toBe('open');
  });

  it('a tampered cookie is refused, and signing out ends the session for every holder', async () => {
    const [name, value] = cookie.split('=');
    const tampered = `${name}=${value.replace(/^v1\.[0-9a-z]+/, 'v1.zzzzzzzzz')}`;
    expect((await send(keel, 'GET', '/session', { cookie: tampered })).status).toBe(401);
    const out = await send(keel, 'POST', '/keel/logout', { cookie, origin: keel.url });
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^keel_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/);
    expect((await send(keel, 'GET', '/session', { cookie })).status).toBe(401);
    expect((await send(keel, 'GET', '/keel/auth', { cookie })).body).toEqual({ passwordRequired: true, signedIn: false });
  });
});
