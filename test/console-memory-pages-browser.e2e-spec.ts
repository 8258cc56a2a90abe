import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { atBothWidths, collectConsoleErrors, launchChromium, SCREENSHOTS, step } from './support/browser';
import { startKeel, TestKeel } from './support/keel';

async function post(keel: TestKeel, path: string, body: unknown): Promise<any> {
  const response = await fetch(keel.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return response.json();
}

// The memory pages' second round: tags from the API, empty states, the settings page, 390 px.
describe('Console: memory pages, second round', () => {
  let browser: Browser;
  let keel: TestKeel;
  beforeAll(async () => {
    browser = await launchChromium();
    keel = await startKeel();
  });
  afterAll(async () => {
    await browser?.close();
    await keel?.close();
  });

  it('an empty Documents page calls to add the first documents', async () => {
    const page = await browser.newPage();
    await step(page, 'documents-empty', async () => {
      await page.goto(`${keel.url}/ui/memory/documents`);
      await page.getByText('No document yet.').waitFor();
      expect(await page.getByText('Per page').isVisible()).toBe(false);
      await page.getByRole('button', { name: 'Add the first documents' }).click();
      await page.getByRole('button', { name: 'Close' }).waitFor();
    });
    await page.close();
  });

  it('offers the container tags in use (GET /v3/container-tags) on Memories and Profiles', async () => {
    for (const [tag, n] of [
      ['team_alpha', 2],
      ['team_beta', 1],
    ] as const)
      for (let i = 0; i < n; i++)
        await post(keel, '/v3/documents', {
          content: `Note ${i} of ${tag}: the deploy runs on Fridays.`,
          containerTag: tag,
        });
    const tags = await (await fetch(`${keel.url}/v3/container-tags`)).json();
    expect(
      tags.containerTags.map((t: { containerTag: string; documents: number }) => [
        t.containerTag,
        t.documents,
      ]),
    ).toEqual([
      ['team_alpha', 2],
      ['team_beta', 1],
    ]);
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    for (const path of ['memories', 'profiles']) {
      await step(page, `tags-${path}`, async () => {
        await page.goto(`${keel.url}/ui/memory/${path}`);
        // Not blank: a tag in use is chosen, and the others are offered.
        await page.waitForURL(/\?tag=team_/);
        await page.getByRole('combobox', { name: 'Container tag' }).click();
        await page.getByRole('option', { name: /team_beta/ }).click();
        await page.waitForURL(/\?tag=team_beta/);
        expect(await page.getByPlaceholder('sm_project_default').count()).toBe(0);
      });
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it('edits /v3/settings on the Settings page: Save only once something changed', async () => {
    const page = await browser.newPage();
    await step(page, 'settings-page', async () => {
      await page.goto(`${keel.url}/ui/memory/settings`);
      await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
      const save = page.getByRole('button', { name: 'Save settings' });
      expect(await save.isDisabled()).toBe(true);
      await page.getByRole('textbox', { name: 'Chunk size' }).fill('1500');
      expect(await save.isDisabled()).toBe(false);
      await save.click();
      await page
        .locator('.mantine-Notification-root')
        .filter({ hasText: 'Settings saved (chunkSize)' })
        .waitFor();
      const settings = await (await fetch(`${keel.url}/v3/settings`)).json();
      expect(settings.chunkSize).toBe(1500);
      await save.and(page.locator(':disabled')).waitFor();
    });
    await page.close();
  });

  it("puts Delete document after the document's content, not under its title", async () => {
    const list = await post(keel, '/v3/documents/list', { limit: 1 });
    const id = list.memories[0].id;
    const page = await browser.newPage();
    await step(page, 'document-delete-last', async () => {
      await page.goto(`${keel.url}/ui/memory/documents/${id}`);
      const buttons = page.getByRole('main').getByRole('button');
      await page.getByRole('button', { name: 'Delete document' }).waitFor();
      const names = await buttons.allTextContents();
      expect(names.indexOf('Delete document')).toBe(names.length - 1);
    });
    await page.close();
  });

  it('draws 50 and 500 memories as a readable graph, with search that zooms to the matches', async () => {
    for (const [tag, count] of [
      ['graph_50', 50],
      ['graph_500', 500],
    ] as const) {
      for (let start = 0; start < count; start += 100) {
        const memories = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({
          content: `Service${start + i} handles the ${tag} traffic`,
        }));
        const answer = await fetch(`${keel.url}/v4/memories`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ containerTag: tag, memories }),
        });
        expect(answer.status).toBe(201);
      }
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const errors = collectConsoleErrors(page);
      await step(page, `graph-${count}`, async () => {
        await page.goto(`${keel.url}/ui/memory/memories?tag=${tag}`);
        const nodes = page.locator('.react-flow__node');
        await page.waitForFunction((n) => document.querySelectorAll('.react-flow__node').length === n, count);
        await page.waitForTimeout(400);
        const widths = await nodes.evaluateAll((list) =>
          list.map((n) => n.getBoundingClientRect().width).sort((a, b) => a - b),
        );
        const median = widths[Math.floor(widths.length / 2)];
        // One column of 50 facts fitted into the panel drew each node about 20 px wide.
        expect({ count, readable: median >= (count === 50 ? 90 : 40) }).toEqual({ count, readable: true });
        await page.getByRole('textbox', { name: 'Find in the graph' }).fill(`Service${count - 8}`);
        await page.getByText('1 matching: the view zooms to them').waitFor();
        await page.waitForTimeout(700);
        const match = await page.locator('.react-flow__node.memory-match').boundingBox();
        expect({ count, zoomed: !!match && match.width >= 200 }).toEqual({ count, zoomed: true });
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOTS, `memory-graph-${count}-1440-light.png`) });
        await page.getByRole('textbox', { name: 'Find in the graph' }).fill('');
        await page.waitForTimeout(500);
        await page.screenshot({ path: join(SCREENSHOTS, `memory-graph-${count}-whole-1440-light.png`) });
      });
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('at 390 px every memory tab and every document column stays in view', async () => {
    await atBothWidths(browser, `${keel.url}/ui/memory/documents`, 'memory-documents', async (page) => {
      await page.getByRole('table', { name: 'Documents' }).waitFor();
      for (const tab of ['Pipeline', 'Settings']) {
        const box = await page.getByRole('tab', { name: tab }).boundingBox();
        const width = page.viewportSize()!.width;
        expect({ tab, inView: !!box && box.x >= 0 && box.x + box.width <= width }).toEqual({
          tab,
          inView: true,
        });
      }
      const firstRow = page.getByRole('table', { name: 'Documents' }).getByRole('row').nth(1);
      await firstRow
        .getByText(/team_(alpha|beta)/)
        .first()
        .waitFor();
    });
    await atBothWidths(browser, `${keel.url}/ui/memory/settings`, 'memory-settings', (page) =>
      page.getByRole('button', { name: 'Save settings' }).waitFor(),
    );
    await atBothWidths(browser, `${keel.url}/ui/memory/memories?tag=team_alpha`, 'memory-memories', (page) =>
      page.getByRole('combobox', { name: 'Container tag' }).waitFor(),
    );
  });
});
