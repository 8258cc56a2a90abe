import type { Browser } from 'playwright-core';
import {
  collectConsoleErrors,
  launchChromium,
  seriousAccessibilityViolations,
  step,
} from './support/browser';
import { ResourceWatcher } from '../src/middleware-manager/resource-watcher.service';
import { FakeRoutingUpstream, routingApi } from './support/fake-routing-upstreams';
import { startKeel, TestKeel } from './support/keel';

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

    it('opens the routing dashboard directly, with no console error and no serious accessibility violation', async () => {
      const page = await browser.newPage();
      const errors = collectConsoleErrors(page);
      await step(page, 'open-dashboard', async () => {
        await page.goto(keel.url + '/');
        await page.getByRole('heading', { name: 'Routing dashboard' }).waitFor();
        expect(page.url()).toBe(keel.url + '/ui/routing');
      });
      await step(page, 'dashboard-accessibility', async () => {
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
      });
      expect(errors).toEqual([]);
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
    beforeAll(async () => {
      keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: 'secret' } });
    });
    afterAll(() => keel.close());

    it('asks for the credentials, refuses a wrong password, then signs in and keeps them out of the URL', async () => {
      const page = await browser.newPage();
      await step(page, 'login-page', async () => {
        await page.goto(keel.url + '/ui/');
        await page.getByRole('textbox', { name: 'Password' }).waitFor();
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
      });
      await step(page, 'login-wrong-password', async () => {
        await page.getByRole('textbox', { name: 'Password' }).fill('wrong');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByText('Wrong username or password.').waitFor();
      });
      await step(page, 'login-right-password', async () => {
        await page.getByRole('textbox', { name: 'Password' }).fill('secret');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Routing dashboard' }).waitFor();
        expect(page.url()).not.toContain('secret');
      });
      await step(page, 'reload-stays-signed-in', async () => {
        await page.reload();
        await page.getByRole('heading', { name: 'Routing dashboard' }).waitFor();
      });
      await page.close();
    });
  });
});
