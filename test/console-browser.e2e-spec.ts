import type { Browser } from 'playwright-core';
import {
  collectConsoleErrors,
  launchChromium,
  seriousAccessibilityViolations,
  step,
} from './support/browser';
import { ResourceWatcher } from '../src/routing/resources/resource-watcher.service';
import { FakeRoutingUpstream, routingApi } from './support/fake-routing-upstreams';
import { startKeel, tempDir, TestKeel } from './support/keel';

// The built console in a real Chromium against a real Keel (npm test builds the console first).
describe('Console in a browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser.close());

  describe('without a password', () => {
    let keel: TestKeel;
    beforeAll(async () => {
      keel = await startKeel();
    });
    afterAll(() => keel.close());

    it('opens on the overview of the three surfaces, with no console error and no serious accessibility violation', async () => {
      const page = await browser.newPage();
      const errors = collectConsoleErrors(page);
      await step(page, 'open-overview', async () => {
        await page.goto(keel.url + '/');
        await page.getByRole('heading', { name: 'Overview' }).waitFor();
        expect(page.url()).toBe(keel.url + '/ui/');
        for (const section of ['Sessions', 'Memory', 'Routing', 'Server']) await page.getByRole('region', { name: section }).waitFor();
        await page.getByText(/^Nothing running and nothing waiting for a permission\./).waitFor();
        await page.getByText('0 documents in the pipeline').waitFor();
        await page.getByText('No active resource yet: add a data source to sync them.').waitFor();
        await page.getByText('ready', { exact: true }).waitFor();
        // The navigation groups the pages by surface, and the header names the one open.
        await page.getByRole('group', { name: 'Routing' }).getByRole('link', { name: 'Middlewares' }).waitFor();
        await page.getByRole('group', { name: 'Memory' }).getByRole('link', { name: 'Documents' }).waitFor();
        await page.locator('[data-surface="Overview"]').waitFor();
      });
      await step(page, 'overview-accessibility', async () => {
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
      });
      await step(page, 'command-palette-pages', async () => {
        await page.keyboard.press('Control+K');
        await page.getByRole('textbox', { name: 'Go to or run' }).fill('middlewares');
        await page.keyboard.press('Enter');
        await page.waitForURL(keel.url + '/ui/routing/middlewares');
        await page.locator('[data-surface="Routing"]').waitFor();
      });
      expect(errors).toEqual([]);
      await page.close();
    });

    it('answers an unknown console address with a page saying so and a link home', async () => {
      const page = await browser.newPage();
      await step(page, 'not-found', async () => {
        for (const path of ['/ui/no-such-page', '/ui/memory/no-such-tab', '/ui/sessions/a/b']) {
          await page.goto(keel.url + path);
          await page.getByRole('heading', { name: 'Page not found' }).waitFor();
          // The address stays as asked, and is named on the page.
          expect(page.url()).toBe(keel.url + path);
          await page.getByText(path, { exact: true }).waitFor();
        }
        await page.getByRole('link', { name: 'Go to the overview' }).click();
        await page.getByRole('heading', { name: 'Overview' }).waitFor();
        expect(new URL(page.url()).pathname).toMatch(/^\/ui\/?$/);
      });
      await page.close();
    });
    it('says what to do next on the pages a fresh install leaves empty', async () => {
      const project = tempDir('keel-console-empty-');
      const created = await fetch(`${keel.url}/session?directory=${encodeURIComponent(project)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Nothing said yet' }),
      });
      const session = (await created.json()) as { id: string };
      const q = `directory=${encodeURIComponent(project)}`;
      const page = await browser.newPage();
      const errors = collectConsoleErrors(page);
      await step(page, 'empty-states', async () => {
        await page.goto(`${keel.url}/ui/sessions/${session.id}?${q}`);
        await page.getByText(/^No message yet: write a prompt below/).waitFor();
        await page.goto(`${keel.url}/ui/sessions/terminal?${q}`);
        await page.getByText(/^No terminal open\. New terminal starts a shell in this project/).waitFor();
        await page.goto(`${keel.url}/ui/sessions/files?${q}`);
        await page.getByText('No file in this project yet: files the session writes show up here.').waitFor();
        await page.goto(`${keel.url}/ui/routing/resources`);
        await page.getByText(/^No resource yet\./).waitFor();
        expect(await page.getByRole('table', { name: 'Resources' }).count()).toBe(0);
        await page.getByRole('link', { name: 'point it at Pangolin or Traefik' }).click();
        await page.getByRole('heading', { name: 'Data sources' }).waitFor();
        for (const tab of ['memories', 'profiles']) {
          await page.goto(`${keel.url}/ui/memory/${tab}`);
          await page.getByText(/^Memories and profiles are kept per container tag/).waitFor();
        }
        await page.getByRole('main').getByRole('link', { name: 'Add documents' }).click();
        await page.getByRole('heading', { name: 'Documents' }).waitFor();
        // API keys are listed under Memory, and the header says so.
        await page.goto(`${keel.url}/ui/keys`);
        await page.getByRole('heading', { name: 'API keys' }).waitFor();
        await page.locator('[data-surface="Memory"]').waitFor();
      });
      expect(errors).toEqual([]);
      await page.close();
    });

    it('gives a data source its whole width at 390 px (username and password one under the other)', async () => {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await step(page, 'datasources-390', async () => {
        await page.goto(`${keel.url}/ui/routing/datasources`);
        const url = await page.getByRole('textbox', { name: 'URL' }).first().boundingBox();
        const username = await page.getByRole('textbox', { name: 'Username' }).first().boundingBox();
        const password = await page.getByRole('textbox', { name: 'Password' }).first().boundingBox();
        expect(username!.width).toBeCloseTo(url!.width, 0);
        expect(password!.y).toBeGreaterThan(username!.y + username!.height);
      });
      await page.close();
    });

    it('finds a middleware and a document by name in the command palette, and opens them', async () => {
      // Last in this block: the document it adds would fill the pages the empty-install test reads.
      const page = await browser.newPage();
      await step(page, 'command-palette-records', async () => {
        // A middleware (the seeded Basic Auth) and a document are found by name and opened.
        const added = await fetch(`${keel.url}/v3/documents`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ content: 'Belugas sing in the Arctic.', title: 'Palette whale notes' }),
        });
        const { id } = (await added.json()) as { id: string };
        await page.goto(`${keel.url}/ui/routing/middlewares`);
        await page.getByRole('heading', { name: 'Middlewares' }).waitFor();
        await page.keyboard.press('Control+K');
        await page.getByRole('textbox', { name: 'Go to or run' }).fill('basic auth');
        await page.keyboard.press('Enter');
        await page.waitForURL(`${keel.url}/ui/routing/middlewares/basic-auth`);
        await page.getByRole('heading', { name: 'Edit middleware' }).waitFor();
        expect(await page.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('Basic Auth');
        await page.keyboard.press('Control+K');
        await page.getByRole('textbox', { name: 'Go to or run' }).fill('palette whale');
        await page.getByRole('listbox', { name: 'Results' }).getByText('Palette whale notes').waitFor();
        await page.keyboard.press('Enter');
        await page.waitForURL(`${keel.url}/ui/memory/documents/${id}`);
      });
      await page.close();
    });
  });

  describe('resources synced from Pangolin', () => {
    let keel: TestKeel;
    let pangolin: FakeRoutingUpstream;
    beforeAll(async () => {
      pangolin = await new FakeRoutingUpstream().start();
      for (let i = 0; i < 300; i++)
        pangolin.routers[`${i}-app-router`] = {
          rule: `Host(\`app${i}.example.com\`)`,
          service: `${i}-app-service`,
          entryPoints: ['websecure'],
          tls: { certResolver: 'letsencrypt' },
        };
      keel = await startKeel();
      await routingApi(keel.url)('PUT', '/api/datasource/pangolin', {
        type: 'pangolin',
        url: `${pangolin.url}/`,
      });
      await keel.keel.app.get(ResourceWatcher).syncOnce();
      expect((await routingApi(keel.url)('GET', '/api/resources')).body).toHaveLength(300);
    });
    afterAll(async () => {
      await keel.close();
      await pangolin.stop();
    });

    it('lists them in a virtualized table and filters as one types', async () => {
      const page = await browser.newPage();
      const errors = collectConsoleErrors(page);
      await step(page, 'resources-list', async () => {
        await page.goto(keel.url + '/ui/routing/resources');
        await page.getByText('300 of 300 resources').waitFor();
        // Virtualized: far fewer rows in the document than resources.
        expect(await page.getByRole('row').count()).toBeLessThan(60);
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
      });
      await step(page, 'resources-search', async () => {
        await page.getByRole('textbox', { name: 'Search' }).fill('app12');
        await page.getByText('11 of 300 resources').waitFor();
        await page.getByRole('cell', { name: 'app12.example.com' }).waitFor();
      });
      await step(page, 'resources-status-filter', async () => {
        await page.getByText('Disabled', { exact: true }).click();
        await page.getByText('0 of 300 resources').waitFor();
      });
      expect(errors).toEqual([]);
      await page.close();
    });
  });

  describe('with a password', () => {
    let keel: TestKeel;
    let dir: string;
    beforeAll(async () => {
      dir = tempDir('keel-console-signin-');
      keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: 'secret' } });
    });
    afterAll(() => keel.close());

    it('asks for the credentials with no 401 on a cold load, refuses a wrong password, then signs in and keeps them out of the URL', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors = collectConsoleErrors(page);
      await step(page, 'login-page', async () => {
        await page.goto(keel.url + '/ui/');
        await page.getByRole('textbox', { name: 'Password' }).waitFor();
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
        // The sign-in page asks GET /keel/auth, which never answers 401: a cold load logs nothing.
        expect(errors).toEqual([]);
      });
      await step(page, 'login-wrong-password', async () => {
        await page.getByRole('textbox', { name: 'Password' }).fill('wrong');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByText('Wrong username or password.').waitFor();
      });
      await step(page, 'login-right-password', async () => {
        await page.getByRole('textbox', { name: 'Password' }).fill('secret');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Overview' }).waitFor();
        expect(page.url()).not.toContain('secret');
        const [cookie] = await context.cookies();
        expect(cookie).toMatchObject({ name: 'keel_session', path: '/', httpOnly: true, sameSite: 'Strict' });
        expect(cookie.value).not.toContain('secret');
        expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }))).not.toContain('secret');
      });
      await step(page, 'reload-stays-signed-in', async () => {
        await page.reload();
        await page.getByRole('heading', { name: 'Overview' }).waitFor();
      });
      await context.close();
    });

    it('holds across tabs (live events and the terminal included) until signed out in any of them', async () => {
      const context = await browser.newContext();
      const first = await context.newPage();
      await first.goto(keel.url + '/ui/');
      await first.getByRole('textbox', { name: 'Password' }).fill('secret');
      await first.getByRole('button', { name: 'Sign in' }).click();
      await first.getByRole('heading', { name: 'Overview' }).waitFor();

      const second = await context.newPage();
      const errors = collectConsoleErrors(second);
      await step(second, 'second-tab-signed-in', async () => {
        const events = second.waitForResponse((r) => r.url().includes('/global/event'));
        await second.goto(`${keel.url}/ui/sessions?directory=${encodeURIComponent(dir)}`);
        await second.getByRole('heading', { name: 'Sessions', exact: true }).waitFor();
        expect((await events).status()).toBe(200);
      });
      await step(second, 'second-tab-terminal', async () => {
        await second.goto(`${keel.url}/ui/sessions/terminal?directory=${encodeURIComponent(dir)}`);
        await second.getByRole('button', { name: 'New terminal' }).click();
        const rows = second.locator('.xterm-rows');
        await rows.waitFor();
        await second.locator('.xterm').click();
        await second.keyboard.type('echo cookie-$((6*7))\n');
        await rows.getByText('cookie-42', { exact: true }).waitFor();
        await second.getByRole('button', { name: 'Close terminal' }).click();
      });
      expect(errors).toEqual([]);
      await step(second, 'sign-out', async () => {
        await second.getByRole('button', { name: 'Sign out' }).click();
        await second.getByRole('textbox', { name: 'Password' }).waitFor();
      });
      await step(first, 'first-tab-signed-out', async () => {
        await first.reload();
        await first.getByRole('textbox', { name: 'Password' }).waitFor();
      });
      await context.close();
    });
  });
});
