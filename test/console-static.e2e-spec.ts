import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startKeel, TestKeel } from './support/keel';

// The console's built files (npm test builds them first; `npm run build --workspace console` alone suffices).
const assetsDir = join(__dirname, '..', 'console', 'dist', 'assets');

describe('Console served at /ui/', () => {
  let keel: TestKeel;
  beforeAll(async () => {
    keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: 'secret' } });
  });
  afterAll(() => keel.close());

  it('serves the page without credentials, and index.html for client routes, never cached', async () => {
    for (const path of ['/ui/', '/ui/routing', '/ui/routing/resources/abc']) {
      const res = await fetch(keel.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<div id="root">');
    }
  });

  it('caches hashed assets for a year and answers a missing asset with 404, not the page', async () => {
    const script = readdirSync(assetsDir).find((name) => name.endsWith('.js'))!;
    const res = await fetch(`${keel.url}/ui/assets/${script}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const missing = await fetch(`${keel.url}/ui/assets/index-00000000.js`);
    expect(missing.status).toBe(404);
  });

  it("redirects a browser's GET / to /ui/ and leaves API clients' answers alone", async () => {
    const browser = await fetch(keel.url + '/', {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      redirect: 'manual',
    });
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/ui/');
    const client = await fetch(keel.url + '/', {
      headers: { accept: 'application/json' },
      redirect: 'manual',
    });
    expect(client.status).toBe(401);
    const api = await fetch(keel.url + '/api/resources');
    expect(api.status).toBe(401);
    expect(api.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it("answers the console's unauthenticated calls with 401 but no Basic challenge (no browser dialog)", async () => {
    const res = await fetch(keel.url + '/global/health', { headers: { 'x-requested-with': 'keel-console' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });
});
