import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { collectConsoleErrors, launchChromium, seriousAccessibilityViolations, step } from './support/browser';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { ScriptedProvider } from './support/scripted-provider';
import { messageFixtures } from './support/message-fixtures';
import { MessageService } from '../src/messages/message.service';

const PASSWORD = 'console-secret';
const CREDENTIALS = Buffer.from(`opencode:${PASSWORD}`).toString('base64');
const SHOTS = process.env.KEEL_SHOTS ?? '/tmp/keel-sessions-shots';

/** A gate a scripted reply waits on, opened by the test. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

// The session console and the public share page in a real Chromium, against Keel with a password
// and a scripted model server on loopback.
describe('Session console and share page in a browser', () => {
  let browser: Browser;
  let scripted: ScriptedProvider;
  let keel: TestKeel;
  let dir: string;
  let sessionID: string;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${keel.url}${path}${path.includes('?') ? '&' : '?'}directory=${encodeURIComponent(dir)}`, {
      method,
      headers: { Authorization: `Basic ${CREDENTIALS}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: response.status === 204 ? undefined : await response.json() };
  };

  async function prompt(text: string): Promise<void> {
    await page.getByRole('textbox', { name: 'Prompt' }).fill(text);
    await page.getByRole('button', { name: /^(Send|Queue)$/ }).click();
  }

  /** The list is virtualized: messages far from the viewport are not in the document. */
  async function scrollToEnd(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForTimeout(100);
    }
  }

  beforeAll(async () => {
    browser = await launchChromium();
    scripted = await ScriptedProvider.start();
    dir = tempDir('keel-sessions-browser-');
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify({
        ...scripted.config(),
        permission: { bash: 'ask' },
        command: { greet: { description: 'Greets someone', template: 'Say a greeting to $1' } },
      }),
    );
    writeFileSync(join(dir, 'notes.txt'), 'the notes say hello\n');
    keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD } });
    sessionID = (await api('POST', '/session', { title: 'Browser session' })).body.id;
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Signed in as the console is: the session cookie of POST /keel/login, shared by every tab.
    expect((await context.request.post(`${keel.url}/keel/login`, { data: { password: PASSWORD } })).status()).toBe(200);
    page = await context.newPage();
    errors = collectConsoleErrors(page);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await keel?.close();
    await scripted?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the project and its sessions', async () => {
    await step(page, 'sessions-list', async () => {
      await page.goto(`${keel.url}/ui/sessions?directory=${encodeURIComponent(dir)}`);
      await page.getByRole('link', { name: /Browser session/ }).waitFor();
      await page.screenshot({ path: `${SHOTS}/sessions-list.png` });
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await page.getByRole('link', { name: /Browser session/ }).click();
      await page.getByRole('heading', { name: 'Browser session' }).waitFor();
    });
  });

  it('streams a prompt that runs a tool into the view as it arrives', async () => {
    const paused = gate();
    const notes = join(dir, 'notes.txt');
    scripted.reply(
      { steps: [{ text: 'Reading **the notes** now' }, { until: paused.promise }, { tool: 'read', args: { filePath: notes } }] },
      { steps: [{ text: 'The notes say `hello`.' }] },
    );
    await step(page, 'stream-tool', async () => {
      await prompt('What do the notes say?');
      // Shown while the model is still streaming (paused before its tool call).
      await page.locator('strong', { hasText: 'the notes' }).waitFor();
      await page.getByRole('status', { name: 'Working' }).waitFor();
      paused.open();
      await page.locator('[data-part="tool"][data-status="completed"]', { hasText: 'read' }).waitFor();
      await page.locator('code', { hasText: 'hello' }).waitFor();
      await page.getByRole('status', { name: 'Idle' }).waitFor();
    });
  });

  it('asks a permission on the page; allowing it once lets the tool run', async () => {
    scripted.reply(
      { steps: [{ tool: 'bash', args: { command: 'echo permitted-output', description: 'Echo' } }] },
      { steps: [{ text: 'The command ran.' }] },
    );
    await step(page, 'permission', async () => {
      await prompt('Run the echo');
      const dialog = page.getByRole('alertdialog');
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain('echo permitted-output');
      await page.screenshot({ path: `${SHOTS}/permission.png`, fullPage: true });
      await dialog.getByRole('button', { name: 'Allow once' }).click();
      await page.locator('[data-part="tool"][data-status="completed"]', { hasText: 'bash' }).waitFor();
      await page.getByText('The command ran.').waitFor();
      expect(await page.getByRole('alertdialog').count()).toBe(0);
      await page.locator('[data-part="tool"]', { hasText: 'bash' }).locator('summary').click();
      await page.locator('pre[aria-label="Output"]', { hasText: 'permitted-output' }).waitFor();
    });
  });

  it('aborts a running prompt', async () => {
    const never = gate();
    scripted.reply({ steps: [{ text: 'Starting a long answer' }, { until: never.promise }] });
    await step(page, 'abort', async () => {
      await prompt('Write a long answer');
      await page.getByText('Starting a long answer').waitFor();
      await page.getByRole('button', { name: 'Abort' }).click();
      await page.getByRole('status', { name: 'Idle' }).waitFor();
      await page.locator('[data-part="error"]', { hasText: 'MessageAbortedError' }).waitFor();
    });
    never.open();
  });

  it('shares: the link opens without credentials, renders the conversation and follows it live; unshare ends it', async () => {
    let url = '';
    await step(page, 'share', async () => {
      await page.getByRole('button', { name: 'Share', exact: true }).click();
      const link = page.getByRole('textbox', { name: 'Share link' });
      await link.waitFor();
      // The change is confirmed in a notification, as every change the console makes.
      await page.locator('.mantine-Notification-root').filter({ hasText: 'Session shared' }).waitFor();
      url = await link.inputValue();
      expect(url).toMatch(new RegExp(`^${keel.url.replace(/\./g, '\\.')}/share/[A-Za-z0-9_-]{24}$`));
      await page.screenshot({ path: `${SHOTS}/session-desktop-light.png`, fullPage: true });
    });

    // No JavaScript: the server-rendered first paint already holds the conversation.
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    await step(await noScript.newPage(), 'share-no-js', async () => {
      const plain = noScript.pages()[0];
      await plain.goto(url);
      await plain.getByText('The notes say `hello`.').waitFor();
      await plain.getByText('Write a long answer').waitFor();
      await plain.screenshot({ path: `${SHOTS}/share-no-js.png`, fullPage: true });
    });
    await noScript.close();

    const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const shared = await visitor.newPage();
    const shareErrors = collectConsoleErrors(shared);
    await step(shared, 'share-page', async () => {
      await shared.goto(url);
      await shared.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      await shared.locator('code', { hasText: 'hello' }).first().waitFor();
      await shared.locator('[data-part="tool"]', { hasText: 'bash' }).waitFor();
      await shared.screenshot({ path: `${SHOTS}/share-desktop-light.png`, fullPage: true });
    });
    expect(shareErrors).toEqual([]);
    await step(shared, 'share-accessibility', async () => {
      expect(await seriousAccessibilityViolations(shared)).toEqual([]);
    });
    await step(shared, 'share-reaches-nothing-else', async () => {
      const statuses = await shared.evaluate(async (id) => {
        const paths = ['/session', `/session/${id}`, `/session/${id}/message`, '/event', '/global/event', '/project', '/config', '/file?path=.'];
        return Promise.all(paths.map(async (p) => [p, (await fetch(p, { headers: { 'X-Requested-With': 'x' } })).status]));
      }, sessionID);
      for (const [path, status] of statuses) expect([path, status]).toEqual([path, 401]);
    });
    await step(shared, 'share-live', async () => {
      scripted.reply({ steps: [{ text: 'A live addition for the visitors' }] });
      await prompt('Add something live');
      await shared.getByText('A live addition for the visitors').waitFor();
      await shared.getByText('Add something live').waitFor();
      await shared.setViewportSize({ width: 360, height: 800 });
      await shared.emulateMedia({ colorScheme: 'dark' });
      await shared.screenshot({ path: `${SHOTS}/share-360-dark.png`, fullPage: true });
    });
    await step(page, 'unshare', async () => {
      await page.getByRole('button', { name: 'Unshare' }).click();
      await page.getByRole('button', { name: 'Share', exact: true }).waitFor();
      await shared.getByText('This session is no longer shared').waitFor();
      expect(await shared.getByText('A live addition for the visitors').count()).toBe(0);
      expect((await fetch(url)).status).toBe(404);
      await shared.screenshot({ path: `${SHOTS}/share-revoked.png` });
    });
    await visitor.close();
  });

  it('mentions a file with @ (sent as a file part) and runs a command', async () => {
    await step(page, 'mention-file', async () => {
      scripted.reply({ steps: [{ text: 'Summed up the notes.' }] });
      const box = page.getByRole('textbox', { name: 'Prompt' });
      await box.fill('Sum up ');
      await box.pressSequentially('@note');
      await page.getByRole('option', { name: 'notes.txt' }).waitFor();
      await page.screenshot({ path: `${SHOTS}/mention-open.png` });
      await page.getByRole('listbox', { name: 'Files to mention' }).getByRole('option', { name: 'notes.txt' }).click();
      expect(await box.inputValue()).toBe('Sum up @notes.txt ');
      await page.screenshot({ path: `${SHOTS}/mention.png` });
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByText('Summed up the notes.').waitFor();
      await page.locator('[data-part="file"]', { hasText: 'notes.txt' }).waitFor();
      // The file's content reached the model, read by the server from the file:// part.
      expect(JSON.stringify(scripted.prompts.at(-1)!.body.messages)).toContain('the notes say hello');
      const user = (await api('GET', `/session/${sessionID}/message`)).body.at(-2);
      const file = user.parts.find((p: { type: string }) => p.type === 'file');
      expect(file).toMatchObject({
        filename: 'notes.txt',
        url: `file://${join(dir, 'notes.txt')}`,
        source: { type: 'file', path: 'notes.txt', text: { value: '@notes.txt', start: 7, end: 17 } },
      });
    });
    await step(page, 'run-command', async () => {
      scripted.reply({ steps: [{ text: 'Hello, world!' }] });
      await page.getByRole('combobox', { name: 'Command' }).click();
      await page.getByRole('option', { name: /greet/ }).click();
      await page.getByRole('textbox', { name: 'Arguments of /greet' }).fill('world');
      await page.getByRole('button', { name: 'Run /greet' }).click();
      await page.getByText('Hello, world!').waitFor();
      await page.getByText('Say a greeting to world').waitFor();
      await page.getByRole('button', { name: 'Send' }).waitFor();
    });
  });

  it('reverts from a message and unreverts; forks from a message', async () => {
    const greeting = page.locator('[data-role="user"]', { hasText: 'Say a greeting to world' });
    await step(page, 'revert', async () => {
      await greeting.getByRole('button', { name: /^Revert/ }).click();
      const reverted = page.getByRole('alert').filter({ hasText: 'Reverted' });
      await reverted.waitFor();
      expect(await reverted.textContent()).toContain('2 messages reverted');
      await greeting.waitFor({ state: 'detached' });
      expect(await page.getByText('Hello, world!').count()).toBe(0);
      expect((await api('GET', `/session/${sessionID}`)).body.revert).toMatchObject({ messageID: expect.any(String) });
      await page.screenshot({ path: `${SHOTS}/reverted.png`, fullPage: true });
      await reverted.getByRole('button', { name: 'Unrevert' }).click();
      await reverted.waitFor({ state: 'detached' });
      await scrollToEnd();
      await page.getByText('Hello, world!').waitFor();
      expect(await page.getByRole('alert').filter({ hasText: 'Reverted' }).count()).toBe(0);
      expect((await api('GET', `/session/${sessionID}`)).body.revert).toBeUndefined();
    });
    await step(page, 'fork', async () => {
      await greeting.getByRole('button', { name: /^Fork/ }).click();
      await page.waitForURL((url) => !url.pathname.endsWith(sessionID));
      const forkID = new URL(page.url()).pathname.split('/').at(-1)!;
      expect(forkID).toMatch(/^ses/);
      await page.getByRole('heading', { name: /^New session/ }).waitFor();
      await scrollToEnd();
      await page.screenshot({ path: `${SHOTS}/forked.png` });
      await page.getByText('Summed up the notes.').waitFor();
      expect(await page.getByText('Hello, world!').count()).toBe(0);
      const forked = (await api('GET', `/session/${forkID}/message`)).body as { info: { role: string } }[];
      expect(forked.length).toBeGreaterThan(0);
      await page.goto(`${keel.url}/ui/sessions/${sessionID}?directory=${encodeURIComponent(dir)}`);
      await page.getByRole('heading', { name: 'Browser session' }).waitFor();
      await page.mouse.move(0, 0);
      await scrollToEnd();
      await page.getByText('Hello, world!').waitFor();
    });
  });

  it('passes accessibility checks (light and dark, desktop and 360 px) and logged no console errors', async () => {
    await step(page, 'session-accessibility', async () => {
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await page.setViewportSize({ width: 360, height: 800 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: `${SHOTS}/session-360-dark.png`, fullPage: true });
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: `${SHOTS}/session-desktop-dark.png` });
    });
    expect(errors).toEqual([]);
  });

  it('opens a terminal: typed input echoes, output made while detached is replayed on reconnect, close', async () => {
    await step(page, 'terminal', async () => {
      await page.goto(`${keel.url}/ui/sessions/terminal?directory=${encodeURIComponent(dir)}`);
      await page.getByRole('button', { name: 'New terminal' }).click();
      const terminal = page.locator('.xterm-rows');
      await terminal.waitFor();
      await page.locator('.xterm').click();
      await page.keyboard.type('echo keel-$((40+2))\n');
      await terminal.getByText('keel-42', { exact: true }).waitFor();
      await page.keyboard.type('sleep 2; echo later-$((1+1))\n');
      await page.reload();
      await page.locator('.xterm-rows').getByText('later-2', { exact: true }).waitFor({ timeout: 15_000 });
      await page.screenshot({ path: `${SHOTS}/terminal.png` });
      await page.getByRole('button', { name: 'Close terminal' }).click();
      await page.locator('.xterm-rows').waitFor({ state: 'detached' });
      expect((await api('GET', '/pty')).body).toEqual([]);
    });
  });

  it('finds and reads a file of the project', async () => {
    await step(page, 'files', async () => {
      await page.goto(`${keel.url}/ui/sessions/files?directory=${encodeURIComponent(dir)}`);
      await page.getByRole('textbox', { name: 'Find a file' }).fill('notes');
      await page.getByRole('button', { name: 'notes.txt' }).click();
      await page.getByRole('region', { name: 'File notes.txt' }).getByText('the notes say hello').waitFor();
      await page.screenshot({ path: `${SHOTS}/files.png` });
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    });
  });

  it('opens a long session on its latest messages and shows earlier ones on request', async () => {
    const long = (await api('POST', '/session', { title: 'Long session' })).body.id as string;
    const messages = keel.keel.app.get(MessageService);
    const seed = messageFixtures(messages, dir);
    for (let i = 0; i < 130; i++) {
      const user = await messages.updateMessage(seed.user(long));
      await messages.updatePart(seed.text(user, `Long message ${i}`));
    }
    await step(page, 'long-session', async () => {
      await page.goto(`${keel.url}/ui/sessions/${long}?directory=${encodeURIComponent(dir)}`);
      const conversation = page.getByRole('log', { name: 'Conversation' });
      // The latest page (100 messages): the first of them at the top, nothing before it.
      await conversation.getByText('Long message 30', { exact: true }).waitFor();
      expect(await conversation.getByText('Long message 29', { exact: true }).count()).toBe(0);
      await page.getByRole('button', { name: 'Show earlier messages' }).click();
      await conversation.getByText('Long message 0', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Show earlier messages' }).waitFor({ state: 'detached' });
    });
  });
});
