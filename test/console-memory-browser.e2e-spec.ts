import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import {
  collectConsoleErrors,
  launchChromium,
  seriousAccessibilityViolations,
  step,
} from './support/browser';
import { startKeel, TestKeel } from './support/keel';
import { ScriptedProvider, type ScriptedReply } from './support/scripted-provider';

// Screenshots for a person to look at (desktop and 360 px, light and dark) when KEEL_CONSOLE_SHOTS names a folder.
const SHOTS = process.env.KEEL_CONSOLE_SHOTS;

async function shoot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [label, width] of [
      ['desktop', 1280],
      ['phone', 360],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(150);
      await page.screenshot({ path: `${SHOTS}/${name}-${label}-${scheme}.png`, fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

async function memoryApi(keel: TestKeel, path: string, body: unknown, apiKey?: string): Promise<any> {
  const response = await fetch(keel.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    body: JSON.stringify(body),
  });
  return response.json();
}

describe('Console: memory pages in a browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser.close());

  describe('documents, search and deletion', () => {
    let keel: TestKeel;
    let page: Page;
    let errors: string[];
    let receiver: Server;
    beforeAll(async () => {
      // A webhook receiver that is down: its deliveries stay in the outbox, retrying, for the pages to show.
      receiver = createServer((_, res) => res.writeHead(503).end());
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const webhooks = {
        KEEL_INGEST_WEBHOOKS: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        KEEL_INGEST_WEBHOOK_ATTEMPTS: '50',
        KEEL_INGEST_WEBHOOK_BACKOFF_MS: '60000',
      };
      Object.assign(process.env, webhooks);
      try {
        keel = await startKeel();
      } finally {
        for (const name of Object.keys(webhooks)) delete process.env[name];
      }
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      errors = collectConsoleErrors(page);
    });
    afterAll(async () => {
      await page.close();
      await keel.close();
      await new Promise((resolve) => receiver.close(resolve));
    });

    it('adds a text and a file from the page and shows each reaching done', async () => {
      await step(page, 'memory-documents-open', async () => {
        await page.goto(keel.url + '/ui/memory');
        await page.getByRole('heading', { name: 'Documents', exact: true }).waitFor();
        expect(page.url()).toBe(keel.url + '/ui/memory/documents');
        await page.getByText('0 documents').waitFor();
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
      });
      await step(page, 'memory-documents-validation', async () => {
        await page.getByRole('button', { name: 'Add documents' }).click();
        await page.getByRole('textbox', { name: 'Content' }).fill('Some text');
        await page.getByRole('textbox', { name: 'Container tag' }).fill('bad tag!');
        await page.getByRole('button', { name: 'Add text' }).click();
        await page.getByRole('alert').filter({ hasText: 'containerTag' }).waitFor();
        // The refused request is the point of this step; no other request may fail.
        expect(errors.splice(0)).toEqual([
          expect.stringMatching(/^400 .*\/v3\/documents$/),
          expect.stringContaining('400 (Bad Request)'),
        ]);
      });
      await step(page, 'memory-documents-add-text', async () => {
        await page
          .getByRole('textbox', { name: 'Content' })
          .fill('The aurora glowed green over Tromsø last night.');
        await page.getByRole('textbox', { name: 'Container tag' }).fill('console_e2e');
        await page.getByRole('textbox', { name: 'Metadata (JSON)' }).fill('{"source": "console"}');
        await page.getByRole('button', { name: 'Add text' }).click();
        await page.getByText('1 document', { exact: true }).waitFor();
      });
      await step(page, 'memory-documents-add-files', async () => {
        await page.getByText('Files', { exact: true }).click();
        await page.getByRole('textbox', { name: 'Container tag' }).fill('console_files');
        await page.getByRole('textbox', { name: 'Metadata (JSON)' }).fill('');
        await page.getByTestId('file-input').setInputFiles([
          {
            name: 'penguins.md',
            mimeType: 'text/markdown',
            buffer: Buffer.from('# Penguins\n\nEmperor penguins huddle through the Antarctic winter.'),
          },
        ]);
        await page.getByText('penguins.md: added').waitFor();
        await page.getByText('2 documents', { exact: true }).waitFor();
      });
      await step(page, 'memory-documents-drop-on-page', async () => {
        // With the add panel closed, files dropped on the list are added and the panel opens with their answers.
        await page.getByRole('button', { name: 'Close' }).click();
        await page.getByRole('textbox', { name: 'Container tag' }).waitFor({ state: 'detached' });
        const dataTransfer = await page.evaluateHandle(() => {
          const transfer = new DataTransfer();
          transfer.items.add(
            new File(['The Aletsch glacier retreated forty meters this summer.'], 'glaciers.txt', {
              type: 'text/plain',
            }),
          );
          return transfer;
        });
        await page.getByRole('table', { name: 'Documents' }).dispatchEvent('dragover', { dataTransfer });
        await page.getByRole('table', { name: 'Documents' }).dispatchEvent('drop', { dataTransfer });
        await page.getByText('glaciers.txt: added').waitFor();
        await page.getByText('3 documents', { exact: true }).waitFor();
      });
      await step(page, 'memory-documents-done', async () => {
        // Live status from the event stream: every row reaches done without a reload.
        await page.waitForFunction(
          () => document.querySelectorAll('tbody [data-status="done"]').length === 3,
          null,
          { timeout: 20_000 },
        );
        await shoot(page, 'documents');
      });
      await step(page, 'memory-documents-filter', async () => {
        await page.getByRole('combobox', { name: 'Container tags' }).fill('console_e2e');
        await page.getByRole('combobox', { name: 'Container tags' }).press('Enter');
        await page.getByText('1 document', { exact: true }).waitFor();
        await page.getByRole('link', { name: /aurora|Tromsø/ }).waitFor();
      });
      await step(page, 'memory-documents-metadata-filter', async () => {
        await page.getByRole('textbox', { name: 'Metadata', exact: true }).fill('source=elsewhere');
        await page.getByText('0 documents', { exact: true }).waitFor();
        await page.getByRole('textbox', { name: 'Metadata', exact: true }).fill('source=console');
        await page.getByText('1 document', { exact: true }).waitFor();
      });
      await step(page, 'memory-document-detail', async () => {
        await page.getByRole('link', { name: /aurora|Tromsø/ }).click();
        await page.getByRole('heading', { name: /Chunks \(1\)/ }).waitFor();
        await page.getByText('"source": "console"').waitFor();
        await page.getByRole('table', { name: 'Webhook deliveries' }).getByText('503').first().waitFor();
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
        await shoot(page, 'document-detail');
      });
      expect(errors).toEqual([]);
    });

    it('finds them in the search playground with a metadata filter, on both APIs', async () => {
      await step(page, 'memory-search-open', async () => {
        await page.goto(keel.url + '/ui/memory/search');
        await page.getByRole('heading', { name: 'Search playground' }).waitFor();
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
      });
      await step(page, 'memory-search-filter', async () => {
        await page.getByRole('textbox', { name: 'Query' }).fill('aurora');
        await page.getByRole('button', { name: 'Add condition' }).click();
        await page.getByRole('textbox', { name: 'Key' }).fill('source');
        await page.getByRole('textbox', { name: 'Value' }).fill('console');
        await page.getByRole('button', { name: 'Search both' }).click();
        await page.getByTestId('v3-result').filter({ hasText: 'aurora' }).waitFor();
        await page.getByTestId('v4-result').filter({ hasText: 'aurora' }).first().waitFor();
        const marks = await page.locator('[data-testid="v3-result"] mark').allTextContents();
        expect(marks.map((m) => m.toLowerCase())).toContain('aurora');
        await page.getByText('Copy curl command').first().waitFor();
        expect(
          await page.locator('pre', { hasText: "curl -X POST '" + keel.url + "/v3/search'" }).count(),
        ).toBe(1);
        await shoot(page, 'search');
      });
      await step(page, 'memory-search-filter-excludes', async () => {
        await page.getByRole('textbox', { name: 'Value' }).fill('elsewhere');
        await page.getByRole('button', { name: 'Search both' }).click();
        await page.getByText('0 results', { exact: false }).first().waitFor();
        expect(await page.getByTestId('v3-result').count()).toBe(0);
      });
      expect(errors).toEqual([]);
    });

    it('shows memories, profiles and the pipeline with no console error and no serious accessibility violation', async () => {
      for (const [path, heading] of [
        ['/ui/memory/memories?tag=console_e2e', 'Memories'],
        ['/ui/memory/profiles?tag=console_e2e', 'Profiles'],
        ['/ui/memory/pipeline', 'Pipeline'],
      ] as const) {
        await step(page, `memory-page-${heading}`, async () => {
          await page.goto(keel.url + path);
          await page.getByRole('heading', { name: heading, exact: true }).waitFor();
          if (heading !== 'Pipeline')
            await page.getByRole('table').or(page.getByText('No facts.')).first().waitFor();
          else await page.getByText(/deliveries waiting or retrying/).waitFor();
          expect(await seriousAccessibilityViolations(page)).toEqual([]);
          await shoot(page, heading.toLowerCase());
        });
      }
      expect(errors).toEqual([]);
    });

    it('deletes them from the page, and search no longer finds them', async () => {
      await step(page, 'memory-delete', async () => {
        await page.goto(keel.url + '/ui/memory/documents');
        await page.getByText('3 documents', { exact: true }).waitFor();
        await page.getByRole('checkbox', { name: 'Select all documents on this page' }).check();
        await page.getByRole('button', { name: 'Delete selected (3)' }).click();
        await page.getByText('0 documents', { exact: true }).waitFor();
      });
      await step(page, 'memory-delete-search', async () => {
        await page.goto(keel.url + '/ui/memory/search');
        await page.getByRole('textbox', { name: 'Query' }).fill('aurora penguins glacier');
        await page.getByRole('button', { name: 'Search both' }).click();
        await page
          .getByText(/^0 results in/)
          .nth(1)
          .waitFor();
        expect(await page.getByTestId('v3-result').count()).toBe(0);
        expect(await page.getByTestId('v4-result').count()).toBe(0);
      });
      expect(errors).toEqual([]);
    });
  });

  describe('with API keys on the memory surface', () => {
    let keel: TestKeel;
    beforeAll(async () => {
      keel = await startKeel({ env: { KEEL_API_KEYS: 'memory-key' } });
    });
    afterAll(() => keel.close());

    it('asks for an API key, refuses a wrong one, then opens the documents page', async () => {
      const page = await browser.newPage();
      await step(page, 'memory-key-form', async () => {
        await page.goto(keel.url + '/ui/memory/documents');
        await page.getByRole('textbox', { name: 'API key' }).waitFor();
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
        await page.getByRole('textbox', { name: 'API key' }).fill('wrong');
        await page.getByRole('button', { name: 'Use this key' }).click();
        await page.getByText('This API key is not accepted.').waitFor();
      });
      await step(page, 'memory-key-right', async () => {
        await page.getByRole('textbox', { name: 'API key' }).fill('memory-key');
        await page.getByRole('button', { name: 'Use this key' }).click();
        await page.getByText('0 documents').waitFor();
        expect(page.url()).not.toContain('memory-key');
      });
      await page.close();
    });
  });

  describe('memory extraction by a scripted model', () => {
    let keel: TestKeel;
    let model: ScriptedProvider;
    beforeAll(async () => {
      model = await ScriptedProvider.start();
      // The memory model is read from the process environment when the app is built.
      const memoryModel = {
        KEEL_MEMORY_LLM_URL: model.url,
        KEEL_MEMORY_LLM_MODEL: 'memory-model',
        KEEL_MEMORY_LLM_API_KEY: 'memory-key',
      };
      Object.assign(process.env, memoryModel);
      try {
        keel = await startKeel();
      } finally {
        for (const name of Object.keys(memoryModel)) delete process.env[name];
      }
    });
    afterAll(async () => {
      await keel.close();
      await model.close();
    });

    const facts = (...list: object[]): ScriptedReply => ({
      steps: [{ text: JSON.stringify({ facts: list }) }],
    });
    const memories = async () =>
      (await memoryApi(keel, '/v4/memories/list', { containerTags: ['llm_alex'], limit: 100 }))
        .memoryEntries as { id: string; memory: string }[];
    const until = async <T>(probe: () => Promise<T | undefined>): Promise<T> => {
      for (let i = 0; i < 400; i++) {
        const value = await probe();
        if (value !== undefined) return value;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('timed out');
    };

    it('draws the updates relation after a fact changes', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = collectConsoleErrors(page);
      const addText = async (content: string) => {
        if (!(await page.getByRole('textbox', { name: 'Content' }).isVisible()))
          await page.getByRole('button', { name: 'Add documents' }).click();
        await page.getByRole('textbox', { name: 'Content' }).fill(content);
        await page.getByRole('textbox', { name: 'Container tag' }).fill('llm_alex');
        await page.getByRole('button', { name: 'Add text' }).click();
      };
      await step(page, 'memory-graph-first-fact', async () => {
        model.reply(
          facts({ memory: 'Alex lives in Berlin', isStatic: true, relation: 'new', relatedTo: null }),
        );
        await page.goto(keel.url + '/ui/memory/documents');
        await page.getByText('0 documents').waitFor();
        await addText('Alex here. I live in Berlin.');
        await until(async () =>
          (await memories()).some((m) => m.memory === 'Alex lives in Berlin') ? true : undefined,
        );
      });
      await step(page, 'memory-graph-changed-fact', async () => {
        model.reply((body: any) => {
          const user = (body.messages as { role: string; content: string | { text: string }[] }[]).find(
            (m) => m.role === 'user',
          )!;
          const text =
            typeof user.content === 'string' ? user.content : user.content.map((p) => p.text).join('');
          const known = (JSON.parse(text) as { existingMemories: { id: string; memory: string }[] })
            .existingMemories;
          const berlin = known.find((m) => m.memory === 'Alex lives in Berlin')?.id ?? null;
          return facts({
            memory: 'Alex lives in Lisbon',
            isStatic: true,
            relation: 'updates',
            relatedTo: berlin,
          });
        });
        await addText('Update from Alex: I moved to Lisbon last month.');
        await until(async () =>
          (await memories()).some((m) => m.memory === 'Alex lives in Lisbon') ? true : undefined,
        );
      });
      await step(page, 'memory-graph', async () => {
        await page.goto(keel.url + '/ui/memory/memories?tag=llm_alex');
        const graph = page.getByRole('region', { name: 'Memory graph' });
        await graph.getByText('updates', { exact: true }).waitFor();
        await graph.getByText(/v1 · old/).waitFor();
        await graph.getByText(/Alex lives in Lisbon/).waitFor();
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
        await shoot(page, 'memories-graph');
      });
      await step(page, 'memory-graph-fits-after-resize', async () => {
        // Narrowed to a phone's 360 px and then a little wider, the graph fits its box again each time.
        const nodesInside = () => {
          const box = document.querySelector('[aria-label="Memory graph"]')!.getBoundingClientRect();
          const nodes = [...document.querySelectorAll('[aria-label="Memory graph"] .react-flow__node')];
          return (
            nodes.length > 0 &&
            nodes.every((node) => {
              const n = node.getBoundingClientRect();
              return (
                n.left >= box.left - 1 &&
                n.right <= box.right + 1 &&
                n.top >= box.top - 1 &&
                n.bottom <= box.bottom + 1
              );
            })
          );
        };
        for (const width of [360, 420, 360]) {
          await page.setViewportSize({ width, height: 800 });
          await page.waitForFunction(nodesInside, undefined, { timeout: 5000 });
        }
        await page.setViewportSize({ width: 1280, height: 900 });
      });
      await step(page, 'memory-forget-restore', async () => {
        await page.getByRole('button', { name: 'Forget Alex lives in Lisbon' }).click();
        await page.getByRole('button', { name: 'Restore Alex lives in Lisbon' }).click();
        await page.getByRole('button', { name: 'Forget Alex lives in Lisbon' }).waitFor();
      });
      expect(errors).toEqual([]);
      await page.close();
    });
  });
});
