import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { MessageService } from '../src/messages/message.service';
import { ResourceWatcher } from '../src/routing/resources/resource-watcher.service';
import { consolePages } from './support/console-pages.mjs';
import { controlsInView, keepFullScreenshot, launchChromium, step, type ClippedControl } from './support/browser';
import { FakeRoutingUpstream, routingApi } from './support/fake-routing-upstreams';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { messageFixtures } from './support/message-fixtures';

/**
 * Controls a page scrolls sideways on purpose, with why. Every other control must fit on a 390 px
 * screen: nothing past its right edge, nothing cut by a box that hides or scrolls its overflow.
 */
const DELIBERATELY_SCROLLED: { page: string; control: RegExp; reason: string }[] = [];

/**
 * Every console page (test/support/console-pages.mjs) at 390×844 in the dark theme, on a Keel
 * with something in each: a session with a tool call, resources, middlewares, services, documents and an
 * organization's key. No page may clip a control (issue 23: "no clipped control at 390 px on any page").
 */
describe('Console at 390 px: every control in view on every page', () => {
  let browser: Browser;
  let keel: TestKeel;
  let pangolin: FakeRoutingUpstream;
  let project: string;
  let sessionID: string;

  beforeAll(async () => {
    browser = await launchChromium();
    project = tempDir('keel-narrow-project-');
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'README.md'), '# Project\n');
    writeFileSync(join(project, 'src', 'app.ts'), 'export const answer = 42;\n');
    pangolin = await new FakeRoutingUpstream().start();
    for (let i = 0; i < 6; i++) {
      pangolin.routers[`${i}-app-router`] = {
        rule: `Host(\`application-number-${i}.a-rather-long-domain.example.com\`)`,
        service: `${i}-app-service`,
        entryPoints: ['websecure'],
        tls: { certResolver: 'letsencrypt' },
      };
    }
    keel = await startKeel();
    const api = routingApi(keel.url);
    expect((await api('PUT', '/api/datasource/pangolin', { type: 'pangolin', url: `${pangolin.url}/` })).status).toBe(200);
    await keel.keel.app.get(ResourceWatcher).syncOnce();
    expect((await api('POST', '/api/middlewares', { name: 'Security headers for every public host', type: 'headers', config: { frameDeny: true } })).status).toBe(201);
    expect((await api('POST', '/api/services', { name: 'Backend pool', type: 'loadBalancer', config: { servers: [{ url: 'http://127.0.0.1:9' }] } })).status).toBe(201);
    const middlewares = (await api('GET', '/api/middlewares')).body as { id: string }[];
    await api('POST', '/api/resources/1-app-router/middlewares', { middleware_id: middlewares[0].id, priority: 100 });

    const session = await fetch(`${keel.url}/session?directory=${encodeURIComponent(project)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'A session with a tool call' }),
    });
    sessionID = ((await session.json()) as { id: string }).id;
    const messages = keel.keel.app.get(MessageService);
    const fixtures = messageFixtures(messages, project);
    const user = await messages.updateMessage(fixtures.user(sessionID));
    await messages.updatePart(fixtures.text(user, 'What does src/app.ts export?'));
    const reply = await messages.updateMessage(fixtures.assistant(sessionID, user.id));
    await messages.updatePart(fixtures.text(reply, 'It exports `answer`, which is 42.'));
    await messages.updatePart(
      fixtures.part(reply, {
        type: 'tool',
        tool: 'bash',
        callID: 'call_1',
        state: { status: 'completed', input: { command: 'cat src/app.ts' }, output: 'export const answer = 42;\n', title: 'Reads src/app.ts to see what it exports', metadata: {}, time: { start: 1, end: 2 } },
      }),
    );

    for (const content of ['A note on deployments.', 'https://example.com/a/rather/long/address/of/a/page/that/was/added']) {
      const added = await fetch(`${keel.url}/v3/documents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content, containerTags: ['team-handbook'] }),
      });
      expect(added.status).toBe(200);
    }
    const org = await fetch(`${keel.url}/keel/organizations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Team Phone' }) });
    expect(org.status).toBe(201);
    const orgID = ((await org.json()) as { id: string }).id;
    const key = await fetch(`${keel.url}/keel/organizations/${orgID}/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'mobile app' }) });
    expect(key.status).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await keel?.close();
    await pangolin?.stop();
  });

  it('clips no button, input or select on any page', async () => {
    const q = `directory=${encodeURIComponent(project)}`;
    const pages = consolePages({ q, sessionID, file: 'src/app.ts', resource: '1-app-router' });
    // What a page opens on a tap, checked too: the navigation drawer, the project picker, the add panel, the palette.
    const opened: [string, string, (page: Page) => Promise<void>][] = [
      ['navigation', '/ui/', (page) => page.getByRole('button', { name: 'Toggle navigation' }).click()],
      ['open-project', `/ui/sessions?${q}`, (page) => page.getByRole('button', { name: 'Open project…' }).click()],
      ['add-documents', '/ui/memory/documents', (page) => page.getByRole('button', { name: 'Add documents' }).click()],
      ['palette', '/ui/routing', (page) => page.keyboard.press('Control+k')],
      [
        'search-results',
        '/ui/memory/search',
        async (page) => {
          await page.getByRole('textbox', { name: 'Query' }).fill('deployments');
          await page.getByRole('button', { name: 'Search both' }).click();
          await page.getByTestId('v3-result').first().waitFor();
          await page.getByText('Copy curl command').first().waitFor();
        },
      ],
    ];
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    const clipped: (ClippedControl & { page: string })[] = [];
    const allowed: string[] = [];
    for (const [name, path, open] of [...pages, ...opened]) {
      const page = await context.newPage();
      await step(page, `narrow-${name}`, async () => {
        await page.goto(keel.url + path);
        await page.locator('main').first().waitFor();
        // Settled: no loader left, then a moment for late answers (the event stream keeps the network busy).
        await page.waitForFunction(() => !document.querySelector('[aria-label="Loading"], [aria-label^="Loading "]'), null, { timeout: 15_000 });
        await page.waitForTimeout(500);
        if (open) {
          await open(page);
          await page.waitForTimeout(500);
        }
        for (const found of await controlsInView(page)) {
          const allow = DELIBERATELY_SCROLLED.find((a) => a.page === name && a.control.test(found.control));
          if (allow) allowed.push(`${name}: ${found.control} (${allow.reason})`);
          else clipped.push({ page: name, ...found });
        }
        await keepFullScreenshot(page, `narrow-${name}-390-dark`);
      });
      await page.close();
    }
    await context.close();
    if (allowed.length) console.log(`Scrolled sideways on purpose:\n${allowed.join('\n')}`);
    // On failure the list names each page and control, and what cuts it.
    expect(clipped.map((c) => `${c.page}: “${c.control}” ${c.reason}${c.container ? ` in ${c.container}` : ''}`)).toEqual([]);
  }, 300_000);
});
