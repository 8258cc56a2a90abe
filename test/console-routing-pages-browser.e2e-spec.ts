import type { Browser } from 'playwright-core';
import { atBothWidths, collectConsoleErrors, launchChromium, step } from './support/browser';
import { ResourceWatcher } from '../src/routing/resources/resource-watcher.service';
import { FakeRoutingUpstream, routingApi } from './support/fake-routing-upstreams';
import { startKeel, TestKeel } from './support/keel';

function router(i: number) {
  return {
    rule: `Host(\`app${i}.example.com\`)`,
    service: `${i}-app-service`,
    entryPoints: ['websecure'],
    tls: { certResolver: 'letsencrypt' },
  };
}

// The Traefik configuration's history, Traefik's live status and the routing pages' reading, in Chromium.
describe('Console: Traefik history, live status and routing pages', () => {
  let browser: Browser;
  let keel: TestKeel;
  let pangolin: FakeRoutingUpstream;
  let traefik: FakeRoutingUpstream;
  let api: ReturnType<typeof routingApi>;

  beforeAll(async () => {
    browser = await launchChromium();
    pangolin = await new FakeRoutingUpstream().start();
    traefik = await new FakeRoutingUpstream().start();
    for (let i = 0; i < 14; i++) pangolin.routers[`${i}-app-router`] = router(i);
    keel = await startKeel();
    api = routingApi(keel.url);
    await api('PUT', '/api/datasource/pangolin', { type: 'pangolin', url: `${pangolin.url}/` });
    await keel.keel.app.get(ResourceWatcher).syncOnce();
    // SQLite keeps creation times to the second: the newest resource comes a second later.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    pangolin.routers['14-new-router'] = router(14);
    await keel.keel.app.get(ResourceWatcher).syncOnce();
  });
  afterAll(async () => {
    await browser?.close();
    await keel?.close();
    await pangolin?.stop();
    await traefik?.stop();
  });

  it('shows the changes kept by the server on a first visit, and compares any two generations', async () => {
    await api('POST', '/api/resources/1-app-router/middlewares', {
      middleware_id: 'authelia',
      priority: 200,
    });
    // Recorded about 50 ms after the change. A loaded CI run once showed the list without it: the wait now
    // ends with a check, so a failure says whether the server recorded the generation or the page missed it.
    const deadline = Date.now() + 30_000;
    let newest: string | undefined;
    while (Date.now() < deadline) {
      const { generations } = (await api('GET', '/api/traefik-config/history')).body;
      newest = generations[0]?.trigger;
      if (newest?.includes('resource.updated 1-app-router')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(newest).toContain('resource.updated 1-app-router');
    // A new browser context: nothing stored in it, the history comes from the server.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = collectConsoleErrors(page);
    await step(page, 'traefik-changes-first-visit', async () => {
      await page.goto(`${keel.url}/ui/routing/traefik-config`);
      await page.getByText('Changes', { exact: true }).click();
      const list = page.getByRole('list', { name: 'Generations' });
      await list.getByText(/resource\.updated 1-app-router/).waitFor();
      await list.getByText(/^start/).waitFor();
      const diff = page.getByLabel('Changes since the previous generation');
      await diff.getByText('+        - "authelia@http"').waitFor();
      expect(page.url()).toContain('view=changes');
    });
    await step(page, 'traefik-changes-compare', async () => {
      await page.getByRole('combobox', { name: 'Compare with' }).click();
      await page.getByRole('option', { name: /^1: / }).click();
      const compared = page.getByLabel('Changes between the two generations');
      await compared
        .getByText(/^\+.*app14\.example\.com/)
        .first()
        .waitFor();
      await compared.getByText(/^\+ +- "?authelia@http"?$/).waitFor();
    });
    await step(page, 'traefik-document-names', async () => {
      await page.getByText('Document (YAML)', { exact: true }).click();
      const yaml = page.getByLabel('Generated configuration');
      await yaml.getByText('# Authelia').waitFor();
      expect(await yaml.textContent()).toMatch(/- "?authelia@http"? {2}# Authelia$/m);
    });
    await step(page, 'traefik-changes-live', async () => {
      // A change made elsewhere while the list is open: its generation appears without a reload.
      await page.getByText('Changes', { exact: true }).click();
      const list = page.getByRole('list', { name: 'Generations' });
      await list.getByText(/resource\.updated 1-app-router/).waitFor();
      await api('PUT', '/api/resources/2-app-router/config/priority', { router_priority: 150 });
      await list.getByText(/resource\.updated 2-app-router/).waitFor();
    });
    expect(errors).toEqual([]);
    await context.close();
    await atBothWidths(
      browser,
      `${keel.url}/ui/routing/traefik-config?view=changes`,
      'traefik-changes',
      (p) => p.getByLabel('Changes since the previous generation').waitFor(),
    );
  });

  it("shows Traefik's live routers, services and middlewares and which of Keel's routers are loaded", async () => {
    const page = await browser.newPage();
    await step(page, 'traefik-status-unconfigured', async () => {
      await page.goto(`${keel.url}/ui/routing/traefik-config?view=status`);
      await page.getByText('No Traefik API data source is configured').waitFor();
    });
    traefik.routers['1-app-router-auth@http'] = {
      ...router(1),
      service: '1-app-service@http',
      provider: 'http',
    };
    traefik.routers['2-app-router-auth@http'] = {
      ...router(2),
      service: 'gone@http',
      provider: 'http',
      status: 'disabled',
      error: ['the service "gone@http" does not exist'],
    };
    traefik.services = [
      { name: '1-app-service@http', provider: 'http', status: 'enabled', type: 'loadbalancer' },
    ];
    traefik.middlewares = [
      { name: 'authelia@http', provider: 'http', status: 'enabled', type: 'forwardauth' },
    ];
    await api('PUT', '/api/datasource/traefik', { type: 'traefik', url: traefik.url });
    await step(page, 'traefik-status', async () => {
      await page.reload();
      await page.getByRole('heading', { name: "Keel's routers: 1 of 15 loaded and healthy" }).waitFor();
      const keelRouters = page.getByRole('table', { name: "Keel's routers in Traefik" });
      const row = (host: string) => keelRouters.getByRole('row').filter({ hasText: host });
      await row('app1.example.com').getByText('enabled').waitFor();
      await row('app2.example.com').getByText('the service "gone@http" does not exist').waitFor();
      await row('app3.example.com').getByText('not loaded').waitFor();
      await page.getByRole('table', { name: 'Traefik middlewares' }).getByText('authelia@http').waitFor();
      await page.getByRole('table', { name: 'Traefik services' }).getByText('1-app-service@http').waitFor();
    });
    await step(page, 'dashboard-traefik-card', async () => {
      await page.goto(`${keel.url}/ui/routing`);
      await page.getByText(/1 of 15 of Keel's routers loaded and healthy in Traefik/).waitFor();
    });
    await page.close();
    await atBothWidths(browser, `${keel.url}/ui/routing/traefik-config?view=status`, 'traefik-status', (p) =>
      p.getByRole('table', { name: "Keel's routers in Traefik" }).waitFor(),
    );
  });

  it('dashboard: stat cards are links, recent resources newest first with middleware names, unprotected list bounded', async () => {
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    await step(page, 'dashboard-reading', async () => {
      await page.goto(`${keel.url}/ui/routing`);
      const recent = page.getByRole('table', { name: 'Recent resources' });
      await recent.getByRole('row').nth(1).filter({ hasText: 'app14.example.com' }).waitFor();
      const unprotected = page.getByRole('list', { name: 'Unprotected resources' }).getByRole('listitem');
      expect(await unprotected.count()).toBe(10);
      await page.getByRole('button', { name: 'Show all 14' }).click();
      expect(await unprotected.count()).toBe(14);
      await page.getByRole('link', { name: /^Middlewares\s*3$/ }).click();
      await page.getByRole('heading', { name: 'Middlewares', exact: true }).waitFor();
    });
    await step(page, 'resources-headers-and-names', async () => {
      await page.goto(`${keel.url}/ui/routing`);
      await page.getByRole('link', { name: /^Active resources\s*15$/ }).click();
      await page.getByRole('heading', { name: 'Resources', exact: true }).waitFor();
      for (const header of ['Host', 'Middlewares', 'Status'])
        await page.getByRole('columnheader', { name: header }).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'app1.example.com' });
      await row.getByText('Authelia', { exact: true }).waitFor();
      expect(await page.getByText(/\d+ mw$/).count()).toBe(0);
    });
    expect(errors).toEqual([]);
    await page.close();
    await atBothWidths(browser, `${keel.url}/ui/routing`, 'routing-dashboard', (p) =>
      p.getByRole('table', { name: 'Recent resources' }).waitFor(),
    );
    await atBothWidths(browser, `${keel.url}/ui/routing/resources`, 'routing-resources', (p) =>
      p.getByRole('columnheader', { name: 'Host' }).waitFor(),
    );
  });

  it('says how every change went, enables Save only when something changed, and Create only when valid', async () => {
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    const notice = (text: string | RegExp) =>
      page.locator('.mantine-Notification-root').filter({ hasText: text });
    await step(page, 'feedback-attach', async () => {
      await page.goto(`${keel.url}/ui/routing/resources/3-app-router`);
      await page.getByRole('heading', { name: 'app3.example.com' }).waitFor();
      await page.getByRole('combobox', { name: 'Add middlewares' }).click();
      await page.getByRole('option', { name: 'Basic Auth (basicAuth)' }).click();
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await notice('1 middleware attached to app3.example.com').waitFor();
    });
    await step(page, 'feedback-save-enabled-on-change', async () => {
      for (const name of ['Save TCP routing', 'Save headers'])
        expect({ name, disabled: await page.getByRole('button', { name }).isDisabled() }).toEqual({
          name,
          disabled: true,
        });
      await page.getByText('TCP SNI routing').click({ force: true });
      expect(await page.getByRole('button', { name: 'Save TCP routing' }).isDisabled()).toBe(false);
      await page.getByRole('button', { name: 'Save TCP routing' }).click();
      await notice('TCP routing saved').waitFor();
      await page.getByRole('button', { name: 'Save TCP routing' }).and(page.locator(':disabled')).waitFor();
      await page.getByRole('button', { name: 'Add header' }).click();
      expect(await page.getByRole('button', { name: 'Save headers' }).isDisabled()).toBe(true);
      await page.getByRole('textbox', { name: 'Header 1 name' }).fill('X-Test');
      expect(await page.getByRole('button', { name: 'Save headers' }).isDisabled()).toBe(false);
    });
    await step(page, 'feedback-failure', async () => {
      await page.getByRole('textbox', { name: 'HTTP entry points' }).fill('web, secure!');
      await page.getByRole('textbox', { name: 'HTTP entry points' }).press('Enter');
      await notice(/HTTP entry points not saved/)
        .getByText(/secure!/)
        .waitFor();
    });
    await step(page, 'feedback-create-disabled-while-invalid', async () => {
      await page.goto(`${keel.url}/ui/routing/middlewares/new`);
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Rate');
      await page.getByText('Valid for Traefik v3.').waitFor();
      expect(await page.getByRole('button', { name: 'Create', exact: true }).isDisabled()).toBe(false);
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText('bogus: 1\n');
      await page.getByRole('alert', { name: 'Not valid for Traefik' }).waitFor();
      expect(await page.getByRole('button', { name: 'Create', exact: true }).isDisabled()).toBe(true);
    });
    await step(page, 'feedback-edit-unchanged', async () => {
      await page.goto(`${keel.url}/ui/routing/middlewares/authelia`);
      await page.getByRole('heading', { name: 'Edit middleware' }).waitFor();
      await page.getByText('Valid for Traefik v3.').waitFor();
      expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Authelia SSO');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await notice('Authelia SSO saved').waitFor();
    });
    expect(errors.filter((e) => !e.includes('400'))).toEqual([]);
    await page.close();
    await atBothWidths(browser, `${keel.url}/ui/routing/resources/1-app-router`, 'routing-resource', (p) =>
      p.getByRole('button', { name: 'Save headers' }).waitFor(),
    );
    // At 390 px the Middlewares list keeps every row's Delete inside the screen.
    await atBothWidths(browser, `${keel.url}/ui/routing/middlewares`, 'routing-middlewares', async (p) => {
      const remove = p.getByRole('button', { name: /^Delete / }).first();
      await remove.waitFor();
      const box = (await remove.boundingBox())!;
      const width = p.viewportSize()!.width;
      expect({ width, left: box.x >= 0, right: box.x + box.width <= width }).toEqual({ width, left: true, right: true });
    });
  });

  it('an empty install says where resources come from', async () => {
    const empty = await startKeel();
    const page = await browser.newPage();
    try {
      await step(page, 'dashboard-empty', async () => {
        await page.goto(`${empty.url}/ui/routing`);
        await page.getByText('No active resource yet.').waitFor();
        expect(await page.getByText('0 of 0').count()).toBe(0);
      });
      // The seeded middlewares and services removed: each list says what they are for and how to make one.
      const emptyApi = routingApi(empty.url);
      for (const kind of ['middlewares', 'services'])
        for (const { id } of (await emptyApi('GET', `/api/${kind}`)).body as { id: string }[])
          expect((await emptyApi('DELETE', `/api/${kind}/${id}`)).status).toBeLessThan(300);
      for (const [kind, singular] of [
        ['middlewares', 'middleware'],
        ['services', 'service'],
      ]) {
        await step(page, `${kind}-empty`, async () => {
          await page.goto(`${empty.url}/ui/routing/${kind}`);
          await page.getByText(`No ${singular} yet.`).waitFor();
          expect(await page.getByText('0 of 0').count()).toBe(0);
          expect(await page.getByRole('table').count()).toBe(0);
          await page.getByRole('link', { name: `Create the first ${singular}` }).click();
          await page.getByRole('heading', { name: `New ${singular}` }).waitFor();
        });
        await atBothWidths(browser, `${empty.url}/ui/routing/${kind}`, `routing-${kind}-empty`, (p) =>
          p.getByText(`No ${singular} yet.`).waitFor(),
        );
      }
    } finally {
      await page.close();
      await empty.close();
    }
  });
});
