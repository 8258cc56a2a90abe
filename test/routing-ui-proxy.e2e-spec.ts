import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, step } from './support/browser';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { DEPLOY_NGINX, Nginx, startNginx, withPorts } from './support/nginx';

/**
 * middleware-manager v3's web UI is a static single-page app whose API calls go to `/api/…` on its own
 * origin. Served by nginx with deploy/nginx/middleware-manager-ui.conf (used verbatim, its name, root
 * and ports replaced), the UI's page drives Keel's routing API from a real browser, while a page of
 * another site, pointed at the same name, changes nothing.
 */

const UI_NAME = 'routing.example.com';
const EVIL_NAME = 'evil.example.net';

interface Answer {
  status: number;
  body: unknown;
}

/** Fetch from inside the page, as the UI's axios calls do (JSON, the page's own origin unless `url` is absolute). */
function callFrom(page: Page, method: string, url: string, body?: unknown): Promise<Answer> {
  return page.evaluate(
    async ({ method, url, body }) => {
      const response = await fetch(url, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    { method, url, body },
  );
}

describe("middleware-manager's web UI in front of Keel through a same-origin nginx", () => {
  let keel: TestKeel;
  let nginx: Nginx;
  let browser: Browser;
  let ui: string;

  const middlewareNames = async () =>
    ((await (await fetch(`${keel.url}/api/middlewares`)).json()) as { name: string }[]).map((m) => m.name);

  beforeAll(async () => {
    ui = tempDir('keel-mm-ui-');
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>Middleware Manager</title><div id="root">Middleware Manager</div>');
    // nginx's workers (nobody, when the test runs as root) read the UI's files.
    chmodSync(ui, 0o755);
    keel = await startKeel({ env: { KEEL_ALLOWED_HOSTS: UI_NAME } });
    const keelPort = new URL(keel.url).port;
    nginx = await startNginx((prefix, port) => {
      const site = withPorts(readFileSync(join(DEPLOY_NGINX, 'middleware-manager-ui.conf'), 'utf8'), { 4096: keelPort })
        .replace('listen 80;', `listen 127.0.0.1:${port};`)
        .replace('root /srv/middleware-manager/ui;', `root ${ui};`);
      writeFileSync(join(prefix, 'site.conf'), site);
      return `  include ${prefix}/site.conf;`;
    });
    // Both names lead to this machine, as DNS would lead them to the proxy.
    browser = await launchChromium([`--host-resolver-rules=MAP ${UI_NAME} 127.0.0.1, MAP ${EVIL_NAME} 127.0.0.1`]);
  });

  afterAll(async () => {
    await browser?.close();
    await nginx?.stop();
    await keel?.close();
    if (ui) rmSync(ui, { recursive: true, force: true });
  });

  it("the UI's page lists, creates, updates and deletes middlewares through the proxy", async () => {
    const page = await browser.newPage();
    const origin = `http://${UI_NAME}:${nginx.port}`;
    await step(page, 'mm-ui-proxy', async () => {
      await page.goto(`${origin}/middlewares`);
      expect(await page.textContent('#root')).toBe('Middleware Manager');

      const listed = await callFrom(page, 'GET', '/api/middlewares');
      expect(listed.status).toBe(200);
      expect(Array.isArray(listed.body)).toBe(true);

      const created = await callFrom(page, 'POST', '/api/middlewares', { name: 'From the UI', type: 'stripPrefix', config: { prefixes: ['/app'] } });
      expect(created.status).toBe(201);
      const { id } = created.body as { id: string };
      const updated = await callFrom(page, 'PUT', `/api/middlewares/${id}`, { name: 'From the UI', type: 'stripPrefix', config: { prefixes: ['/web'] } });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ id, config: { prefixes: ['/web'] } });
      expect(await middlewareNames()).toContain('From the UI');

      const removed = await callFrom(page, 'DELETE', `/api/middlewares/${id}`);
      expect(removed.status).toBe(200);
      expect(await middlewareNames()).not.toContain('From the UI');
    });
    // The requests went through nginx, under the UI's name.
    expect(nginx.accessLog()).toMatch(/"POST \/api\/middlewares HTTP\/1\.1" 201/);
    await page.close();
  });

  it('a page of another site, sending to the same name, changes nothing', async () => {
    const page = await browser.newPage();
    await step(page, 'mm-ui-proxy-evil', async () => {
      await page.goto(`http://${EVIL_NAME}:${nginx.port}/`);
      const target = `http://${UI_NAME}:${nginx.port}/api/middlewares`;
      const payload = JSON.stringify({ name: 'Planted', type: 'redirectRegex', config: { regex: '.*', replacement: 'https://evil.example.net/' } });
      // A no-cors fetch (no preflight, an opaque answer) and an auto-submitted form, as a hostile page would.
      await page.evaluate(
        async ({ target, payload }) => {
          // The request is sent; the browser may then block the opaque answer (a network error to the page).
          await fetch(target, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: payload }).catch(() => undefined);
          const form = document.createElement('form');
          form.method = 'POST';
          form.action = target;
          form.enctype = 'text/plain';
          const field = document.createElement('input');
          field.name = payload.slice(0, -1);
          field.value = '}';
          form.append(field);
          document.body.append(form);
          form.submit();
        },
        { target, payload },
      );
      await page.waitForURL(target);
      expect(await page.textContent('body')).toMatch(/403|another site|not allowed/i);
    });
    expect(await middlewareNames()).not.toContain('Planted');
    await page.close();
  });
});
