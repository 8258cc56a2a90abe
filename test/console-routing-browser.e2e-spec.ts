import type { Browser, Page } from 'playwright-core';
import {
  collectConsoleErrors,
  launchChromium,
  seriousAccessibilityViolations,
  step,
} from './support/browser';
import { ResourceWatcher } from '../src/routing/resources/resource-watcher.service';
import { FakeRoutingUpstream, routingApi } from './support/fake-routing-upstreams';
import { startKeel, TestKeel } from './support/keel';

const RESOURCE = '1-app-router';

function router(i: number) {
  return {
    rule: `Host(\`app${i}.example.com\`)`,
    service: `${i}-app-service`,
    entryPoints: ['websecure'],
    tls: { certResolver: 'letsencrypt' },
  };
}

/** Replaces the CodeMirror editor's text (inserted as is, without auto-indent or bracket closing). */
async function setEditor(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** Resolves once `read()` gives what `expected` equals (deep), or fails with the last value after 5 s. */
async function eventually<T>(read: () => Promise<T>, expected: T): Promise<void> {
  const deadline = Date.now() + 5000;
  let last: T = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
  expect(last).toEqual(expected);
}

async function choose(page: Page, label: string, option: string): Promise<void> {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

// The routing pages in a real Chromium against a real Keel whose resources come from a loopback Pangolin.
describe('Console routing pages in a browser', () => {
  let browser: Browser;
  let keel: TestKeel;
  let pangolin: FakeRoutingUpstream;
  let traefik: FakeRoutingUpstream;
  let api: ReturnType<typeof routingApi>;
  const sync = () => keel.keel.app.get(ResourceWatcher).syncOnce();

  beforeAll(async () => {
    browser = await launchChromium();
    pangolin = await new FakeRoutingUpstream().start();
    traefik = await new FakeRoutingUpstream().start();
    traefik.credentials = { username: 'ops', password: 'secret' };
    for (let i = 0; i < 6; i++) pangolin.routers[`${i}-app-router`] = router(i);
    keel = await startKeel();
    api = routingApi(keel.url);
    await api('PUT', '/api/datasource/pangolin', { type: 'pangolin', url: `${pangolin.url}/` });
    await sync();
    expect((await api('GET', '/api/resources')).body).toHaveLength(6);
  });
  afterAll(async () => {
    await browser?.close();
    await keel?.close();
    await pangolin?.stop();
    await traefik?.stop();
  });

  // One test per look: 10 pages with an accessibility scan each took over a minute on a slow CI machine.
  it.each([
    ['desktop, light', { width: 1280, height: 900 }, 'light'],
    ['360 px, dark', { width: 360, height: 800 }, 'dark'],
  ] as const)(
    'loads every routing page with no console error and no serious accessibility violation (%s)',
    async (_look, viewport, colorScheme) => {
      const paths = [
        ['routing', 'Routing dashboard'],
        ['routing/resources', 'Resources'],
        [`routing/resources/${RESOURCE}`, 'app1.example.com'],
        ['routing/middlewares', 'Middlewares'],
        ['routing/middlewares/new', 'New middleware'],
        ['routing/middlewares/authelia', 'Edit middleware'],
        ['routing/services', 'Services'],
        ['routing/services/new', 'New service'],
        ['routing/datasources', 'Data sources'],
        ['routing/traefik-config', 'Traefik configuration'],
      ];
      const context = await browser.newContext({ viewport, colorScheme });
      const page = await context.newPage();
      const errors = collectConsoleErrors(page);
      for (const [path, heading] of paths) {
        await step(page, `page-${path}-${colorScheme}`, async () => {
          await page.goto(`${keel.url}/ui/${path}`);
          await page.getByRole('heading', { name: heading, exact: true }).waitFor();
          await eventually(() => page.getByLabel('Loading').count(), 0);
          expect({ path, violations: await seriousAccessibilityViolations(page) }).toEqual({
            path,
            violations: [],
          });
        });
      }
      expect(errors).toEqual([]);
      await context.close();
    },
    180_000,
  );

  it("serves the console's scripts gzipped to a client that accepts it, plain to one that does not", async () => {
    const html = await (await fetch(`${keel.url}/ui/`)).text();
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)![1];
    const gzipped = await fetch(`${keel.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('content-type')).toContain('javascript');
    const plain = await fetch(`${keel.url}${script}`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await gzipped.text()).toBe(await plain.text());
    expect((await fetch(`${keel.url}/ui/assets/missing-0000.js`)).status).toBe(404);
  });

  it('attaches several middlewares at once, changes a priority and removes one on the resource page', async () => {
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    await step(page, 'detail-open-from-list', async () => {
      await page.goto(`${keel.url}/ui/routing/resources`);
      await page.getByRole('link', { name: 'app1.example.com' }).click();
      await page.getByRole('heading', { name: 'app1.example.com' }).waitFor();
    });
    await step(page, 'detail-add-middlewares', async () => {
      await page.getByRole('combobox', { name: 'Add middlewares' }).click();
      await page.getByRole('option', { name: 'Authelia (forwardAuth)' }).click();
      await page.getByRole('option', { name: 'Basic Auth (basicAuth)' }).click();
      await page.keyboard.press('Escape');
      await page.getByRole('textbox', { name: 'Priority', exact: true }).fill('300');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('button', { name: 'Remove Basic Auth' }).waitFor();
      const resource = (await api('GET', `/api/resources/${RESOURCE}`)).body;
      expect(resource.assigned_middlewares).toEqual([
        { id: 'authelia', name: 'Authelia', priority: 300 },
        { id: 'basic-auth', name: 'Basic Auth', priority: 300 },
      ]);
    });
    await step(page, 'detail-change-priority', async () => {
      await page.getByRole('textbox', { name: 'Priority of Basic Auth' }).fill('150');
      await page.getByRole('button', { name: 'Save', exact: true }).first().click();
      await eventually(
        async () => (await api('GET', `/api/resources/${RESOURCE}`)).body.assigned_middlewares[1],
        { id: 'basic-auth', name: 'Basic Auth', priority: 150 },
      );
    });
    await step(page, 'detail-remove-middleware', async () => {
      await page.getByRole('button', { name: 'Remove Authelia' }).click();
      await page.getByRole('button', { name: 'Remove Authelia' }).waitFor({ state: 'detached' });
      expect((await api('GET', `/api/resources/${RESOURCE}`)).body.assigned_middlewares).toEqual([
        { id: 'basic-auth', name: 'Basic Auth', priority: 150 },
      ]);
    });
    await step(page, 'detail-router-settings', async () => {
      await page.getByRole('textbox', { name: 'HTTP entry points' }).fill('web, websecure');
      await page.getByRole('textbox', { name: 'HTTP entry points' }).press('Enter');
      await eventually(
        async () => (await api('GET', `/api/resources/${RESOURCE}`)).body.entrypoints,
        'web,websecure',
      );
      // The field shows what was saved (normalized); then a bad entry point name: the API's 400 is
      // shown under the field and nothing changes.
      await eventually(
        () => page.getByRole('textbox', { name: 'HTTP entry points' }).inputValue(),
        'web,websecure',
      );
      await page.getByRole('textbox', { name: 'HTTP entry points' }).fill('web, secure!');
      await page.getByRole('textbox', { name: 'HTTP entry points' }).press('Enter');
      await page.getByRole('main').getByText('"secure!" is not a valid entry point name').waitFor();
      expect((await api('GET', `/api/resources/${RESOURCE}`)).body.entrypoints).toBe('web,websecure');
      await page.getByRole('button', { name: 'Add header' }).click();
      await page.getByRole('textbox', { name: 'Header 1 name' }).fill('X-Forwarded-Proto');
      await page.getByRole('textbox', { name: 'Header 1 value' }).fill('https');
      await page.getByRole('button', { name: 'Save headers' }).click();
      await eventually(async () => (await api('GET', `/api/resources/${RESOURCE}`)).body.custom_headers_map, {
        'X-Forwarded-Proto': 'https',
      });
    });
    expect(errors.filter((e) => !e.includes('400'))).toEqual([]);
    await page.close();
  });

  it('creates middlewares of several types from their templates', async () => {
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    for (const [template, name] of [
      ['rateLimit', 'Rate limit'],
      ['headers', 'Security headers'],
      ['ipAllowList', 'Office only'],
      ['chain', 'Chained'],
    ]) {
      await step(page, `middleware-template-${template}`, async () => {
        await page.goto(`${keel.url}/ui/routing/middlewares/new`);
        await page.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
        await choose(page, 'Template', template);
        await page.getByText('Valid for Traefik v3.').waitFor();
        await page.getByRole('button', { name: 'Create', exact: true }).click();
        await page.getByRole('heading', { name: 'Middlewares' }).waitFor();
        await page.getByRole('link', { name }).waitFor();
      });
    }
    const created = (await api('GET', '/api/middlewares')).body.filter((m: { name: string }) =>
      ['Rate limit', 'Security headers', 'Office only', 'Chained'].includes(m.name),
    );
    expect(created.map((m: { type: string }) => m.type).sort()).toEqual([
      'chain',
      'headers',
      'ipAllowList',
      'rateLimit',
    ]);
    expect(created.find((m: { type: string }) => m.type === 'rateLimit').config).toEqual({
      average: 100,
      burst: 50,
    });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows an invalid configuration as it is typed and the API field error on save, and saves nothing', async () => {
    const page = await browser.newPage();
    const before = (await api('GET', '/api/middlewares')).body.length;
    await step(page, 'invalid-config-as-typed', async () => {
      await page.goto(`${keel.url}/ui/routing/middlewares/new`);
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Broken auth');
      await setEditor(page, 'address: http://auth:9090/\ntrustForwardHeader: "yes"\nbogus: 1\n');
      const problems = page.getByRole('alert', { name: 'Not valid for Traefik' });
      await problems.getByText('is not a field Traefik knows').waitFor();
      await problems.getByText('config.trustForwardHeader').waitFor();
    });
    await step(page, 'invalid-config-api-error', async () => {
      // Create waits for a valid configuration; "Send anyway" lets the server have the last word, and
      // its refusal does not repeat the problems already listed.
      expect(await page.getByRole('button', { name: 'Create', exact: true }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Send anyway' }).click();
      const refused = page.getByRole('alert', { name: 'The server refused the configuration' });
      await refused.waitFor();
      expect(await refused.getByText('config.bogus: is not a field Traefik knows').count()).toBe(0);
      await page.getByText('The middleware was not created').waitFor();
      expect((await api('GET', '/api/middlewares')).body).toHaveLength(before);
    });
    await step(page, 'invalid-json-syntax', async () => {
      await page.getByText('JSON', { exact: true }).click();
      await setEditor(page, '{"address": ');
      await page.getByText('JSON syntax').waitFor();
    });
    await page.close();
  });

  it('creates, edits, assigns and deletes a service; delete names the resources still using it', async () => {
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    await step(page, 'service-create-for-resource', async () => {
      await page.goto(`${keel.url}/ui/routing/resources/${RESOURCE}`);
      await page.getByRole('link', { name: 'Create new' }).click();
      await page.getByRole('heading', { name: 'New service' }).waitFor();
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Backends');
      await setEditor(page, 'servers:\n  - url: http://10.0.0.5:8080\n');
      await page.getByRole('button', { name: 'Create and assign' }).click();
      await page.getByRole('heading', { name: 'app1.example.com' }).waitFor();
      await page.getByRole('link', { name: 'Backends' }).waitFor();
      expect((await api('GET', `/api/resources/${RESOURCE}`)).body.assigned_service).toMatchObject({
        name: 'Backends',
        type: 'loadBalancer',
      });
    });
    await step(page, 'service-edit', async () => {
      await page.getByRole('link', { name: 'Backends' }).click();
      await page.getByRole('heading', { name: 'Edit service' }).waitFor();
      await setEditor(page, 'servers:\n  - url: http://10.0.0.6:8080\n');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('heading', { name: 'Services' }).waitFor();
      const service = (await api('GET', '/api/services')).body.find(
        (s: { name: string }) => s.name === 'Backends',
      );
      expect(service.config).toEqual({ servers: [{ url: 'http://10.0.0.6:8080' }] });
    });
    await step(page, 'service-delete-in-use', async () => {
      await page.getByRole('button', { name: 'Delete Backends' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Still used by 1 resource').waitFor();
      await dialog.getByRole('listitem').getByText('app1.example.com').waitFor();
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await dialog.getByText('Cannot delete service because it is used by 1 resource').waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });
    await step(page, 'service-unassign-and-delete', async () => {
      await page.goto(`${keel.url}/ui/routing/resources/${RESOURCE}`);
      await page.getByRole('button', { name: 'Remove assignment' }).click();
      await page.getByRole('main').getByText('Traffic goes to the default service').waitFor();
      await page.goto(`${keel.url}/ui/routing/services`);
      await page.getByRole('button', { name: 'Delete Backends' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('link', { name: 'Backends' }).waitFor({ state: 'detached' });
      expect((await api('GET', '/api/services')).body.map((s: { name: string }) => s.name)).not.toContain(
        'Backends',
      );
    });
    expect(errors.filter((e) => !e.includes('409'))).toEqual([]);
    await page.close();
  });

  it('edits a data source (the password never comes back), tests it and switches the active source', async () => {
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    const card = page
      .locator('form')
      .filter({ has: page.getByRole('heading', { name: 'traefik', exact: true }) });
    await step(page, 'datasource-edit', async () => {
      await page.goto(`${keel.url}/ui/routing/datasources`);
      // Save is for a change: disabled as loaded, enabled once a field differs, disabled again once saved.
      const save = card.getByRole('button', { name: 'Save' });
      await save.waitFor();
      expect(await save.isDisabled()).toBe(true);
      await card.getByRole('textbox', { name: 'URL' }).fill(traefik.url);
      expect(await save.isDisabled()).toBe(false);
      await card.getByRole('textbox', { name: 'Username' }).fill('ops');
      await card.getByLabel('Password', { exact: true }).fill('wrong');
      await card.getByRole('button', { name: 'Test connection' }).click();
      await card.getByText(/Connection test failed/).waitFor();
      await card.getByLabel('Password', { exact: true }).fill('secret');
      await card.getByRole('button', { name: 'Test connection' }).click();
      await card.getByText('Connection test successful').waitFor();
      await card.getByRole('button', { name: 'Save' }).click();
      await page.getByText('A password is stored; leave empty to keep it').waitFor();
      expect(await card.getByLabel('Password', { exact: true }).inputValue()).toBe('');
      expect(await save.isDisabled()).toBe(true);
      expect(await page.content()).not.toContain('secret');
    });
    await step(page, 'datasource-test-stored', async () => {
      await card.getByRole('button', { name: 'Test connection' }).click();
      await card.getByText('Connection test successful').waitFor();
    });
    await step(page, 'datasource-switch', async () => {
      await choose(page, 'Active data source', 'traefik');
      await eventually(async () => (await api('GET', '/api/datasource/active')).body.name, 'traefik');
      await card.getByText('active', { exact: true }).waitFor();
      await choose(page, 'Active data source', 'pangolin');
      await eventually(async () => (await api('GET', '/api/datasource/active')).body.name, 'pangolin');
    });
    expect(errors.filter((e) => !e.includes('400'))).toEqual([]);
    await page.close();
  });

  it('shows the last sync on the dashboard and deletes the disabled resources in bulk', async () => {
    delete pangolin.routers['4-app-router'];
    delete pangolin.routers['5-app-router'];
    await sync();
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    await step(page, 'dashboard-last-sync', async () => {
      await page.goto(`${keel.url}/ui/routing`);
      await page
        .getByText(/Last sync at .*: 4 routers listed; 0 added, 0 updated, 0 reactivated, 2 disabled/)
        .waitFor();
    });
    await step(page, 'bulk-delete', async () => {
      await page.goto(`${keel.url}/ui/routing/resources`);
      await page.getByRole('button', { name: 'Delete disabled resources (2)' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete 2' }).click();
      await page.getByText('4 of 4 resources').waitFor();
      expect((await api('GET', '/api/resources')).body.map((r: { id: string }) => r.id).sort()).toEqual([
        '0-app-router',
        '1-app-router',
        '2-app-router',
        '3-app-router',
      ]);
    });
    expect(errors).toEqual([]);
    await page.close();
  });
});
