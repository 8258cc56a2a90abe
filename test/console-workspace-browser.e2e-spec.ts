import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { MessageService } from '../src/messages/message.service';
import { PermissionService } from '../src/permissions/permission.service';
import { SessionService } from '../src/sessions/session.service';
import { collectConsoleErrors, launchChromium, seriousAccessibilityViolations, step } from './support/browser';
import { expectSessionBadRequest } from './support/error-bodies';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { messageFixtures } from './support/message-fixtures';

const PASSWORD = 'workspace-secret';
const BASIC = `Basic ${Buffer.from(`opencode:${PASSWORD}`).toString('base64')}`;
const SHOTS = process.env.KEEL_SHOTS ?? '/tmp/keel-workspace-shots';

/**
 * The console as a place to work in a project (issue 23): open any project under the allowed
 * directories (GET /keel/directories) or a recent one, the prompt box and a pending permission pinned
 * in view however long the conversation, and the Files page (a tree from the root, highlighted
 * content, changed files marked, the session's per-file diff).
 */
describe('Projects, the session dock and files in a browser', () => {
  let browser: Browser;
  let keel: TestKeel;
  let root: string;
  let project: string;
  let sessionID: string;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];

  const get = async (path: string, headers: Record<string, string> = { authorization: BASIC }) => {
    const response = await fetch(`${keel.url}${path}`, { headers });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    browser = await launchChromium();
    root = tempDir('keel-workspace-');
    project = join(root, 'project');
    mkdirSync(join(project, 'src'), { recursive: true });
    mkdirSync(join(project, 'docs'));
    mkdirSync(join(root, 'other'));
    mkdirSync(join(root, '.hidden'));
    writeFileSync(join(root, 'loose.txt'), 'a file, not a directory\n');
    symlinkSync('/etc', join(root, 'outside'));
    writeFileSync(join(project, 'README.md'), '# Project\n\nThe first line.\n');
    writeFileSync(join(project, 'package.json'), '{ "name": "project" }\n');
    writeFileSync(join(project, 'src', 'app.ts'), 'export function greet(name: string): string {\n  return `hello ${name}`;\n}\n');
    writeFileSync(join(project, 'docs', 'guide.md'), '# Guide\n');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: 'ignore' });
    git('init', '-q');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.test', 'add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.test', 'commit', '-qm', 'start');
    writeFileSync(join(project, 'src', 'app.ts'), 'export function greet(name: string): string {\n  return `hi ${name}`;\n}\n');

    keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD, KEEL_ALLOWED_DIRECTORIES: root } });
    const created = await fetch(`${keel.url}/session?directory=${encodeURIComponent(project)}`, {
      method: 'POST',
      headers: { authorization: BASIC, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Seeded conversation' }),
    });
    sessionID = ((await created.json()) as { id: string }).id;
    // A long conversation (40 exchanges, each with a tool call), seeded as the prompt loop stores it.
    const messages = keel.keel.app.get(MessageService);
    const fixtures = messageFixtures(messages, project);
    let last = '';
    for (let i = 0; i < 40; i++) {
      const user = await messages.updateMessage(fixtures.user(sessionID));
      await messages.updatePart(fixtures.text(user, `Question number ${i}: what does greet return?`));
      const reply = await messages.updateMessage(fixtures.assistant(sessionID, user.id));
      await messages.updatePart(fixtures.text(reply, `Answer ${i}: it returns a greeting.\n\n${'A long paragraph. '.repeat(20)}`));
      await messages.updatePart(
        fixtures.part(reply, {
          type: 'tool',
          tool: 'bash',
          callID: `call_${i}`,
          state: { status: 'completed', input: { command: `cat src/app.ts # ${i}` }, output: 'line\n'.repeat(60), title: 'Reads src/app.ts to see what greet returns', metadata: {}, time: { start: 1, end: 2 } },
        }),
      );
      last = reply.id;
    }
    // The session's changes, as the prompt loop records them at a step's end.
    await keel.keel.app.get(SessionService).setDiff(sessionID, [
      { file: 'src/app.ts', before: 'export function greet(name: string): string {\n  return `hello ${name}`;\n}\n', after: 'export function greet(name: string): string {\n  return `hi ${name}`;\n}\n', additions: 1, deletions: 1 },
    ]);
    // A pending permission (answered by the test at the end).
    void keel.keel.app.get(PermissionService).ask({ sessionID, messageID: last, type: 'bash', pattern: 'rm -rf build', title: 'rm -rf build', metadata: { command: 'rm -rf build' } });

    context = await browser.newContext({ viewport: { width: 1440, height: 700 }, colorScheme: 'light' });
    expect((await context.request.post(`${keel.url}/keel/login`, { data: { password: PASSWORD } })).status()).toBe(200);
    page = await context.newPage();
    errors = collectConsoleErrors(page);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await keel?.close();
    rmSync(root, { recursive: true, force: true });
  });

  describe('GET /keel/directories', () => {
    it('lists the allowed roots at the top level, then the directories inside one (links only where they stay inside)', async () => {
      expect((await get('/keel/directories')).body).toEqual({ path: null, root: null, parent: null, directories: [{ name: root.split('/').pop(), path: root, git: false }], truncated: false });
      const listing = await get(`/keel/directories?path=${encodeURIComponent(root)}`);
      expect(listing.status).toBe(200);
      expect(listing.body).toEqual({
        path: root,
        root,
        parent: null,
        directories: [
          { name: 'other', path: join(root, 'other'), git: false },
          { name: 'project', path: project, git: true },
          { name: '.hidden', path: join(root, '.hidden'), git: false },
        ],
        truncated: false,
      });
      expect((await get(`/keel/directories?path=${encodeURIComponent(join(project, 'src'))}`)).body).toMatchObject({ path: join(project, 'src'), root, parent: project, directories: [] });
    });

    it('refuses a path outside the roots, a relative one and a file with a 400 naming path; needs the password', async () => {
      for (const path of ['/etc', join(root, 'outside'), 'relative/dir', join(root, 'loose.txt')]) {
        const answer = await get(`/keel/directories?path=${encodeURIComponent(path)}`);
        expect([path, answer.status]).toEqual([path, 400]);
        expectSessionBadRequest(answer.body, 'path');
      }
      expect((await get('/keel/directories', {})).status).toBe(401);
    });
  });

  it('opens a project from the directory picker, creates a session there, and reopens a recent project', async () => {
    await step(page, 'open-project', async () => {
      await page.goto(`${keel.url}/ui/sessions`);
      await page.getByRole('button', { name: 'Open project…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Open a project' });
      await dialog.getByRole('list', { name: 'Recent projects' }).getByRole('button', { name: project }).waitFor();
      const directories = dialog.getByRole('list', { name: 'Directories' });
      await directories.getByRole('button', { name: root, exact: true }).click();
      await directories.getByRole('button', { name: 'project git', exact: true }).waitFor();
      await directories.getByRole('button', { name: 'other', exact: true }).click();
      await dialog.getByText('No subdirectories.').waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/open-project-1440-light.png` });
      await dialog.getByRole('button', { name: 'Open other' }).click();
      await page.waitForURL((url) => url.searchParams.get('directory') === join(root, 'other'));
      await page.getByText('No sessions yet.').waitFor();
      await page.getByRole('button', { name: 'New session' }).click();
      await page.waitForURL(/\/ui\/sessions\/ses_/);
      expect(new URL(page.url()).searchParams.get('directory')).toBe(join(root, 'other'));
    });
    await step(page, 'open-recent-project', async () => {
      await page.goto(`${keel.url}/ui/sessions?directory=${encodeURIComponent(join(root, 'other'))}`);
      await page.getByRole('list', { name: 'Sessions' }).getByRole('link').first().waitFor();
      await page.getByRole('button', { name: 'Open project…' }).click();
      await page.getByRole('list', { name: 'Recent projects' }).getByRole('button', { name: project }).click();
      const row = page.getByRole('link', { name: /Seeded conversation/ });
      await row.waitFor();
      expect(new URL(page.url()).searchParams.get('directory')).toBe(project);
      // More than title and time: where it runs, when it was last active, and what it waits for.
      await row.getByText('waiting for permission').waitFor();
      await row.getByText(project, { exact: true }).waitFor();
      await row.getByText(/last activity/).waitFor();
      await page.screenshot({ path: `${SHOTS}/sessions-1440-light.png` });
    });
  });

  it('shows the session waiting for a permission on the overview, and finds it and runs its commands from the palette', async () => {
    await step(page, 'overview', async () => {
      await page.goto(`${keel.url}/ui/`);
      const sessions = page.getByRole('region', { name: 'Sessions' });
      await sessions.getByText('waiting for permission').waitFor();
      await page.screenshot({ path: `${SHOTS}/overview-1440-light.png` });
      await sessions.getByRole('link', { name: 'Seeded conversation' }).click();
      await page.waitForURL(new RegExp(`/ui/sessions/${sessionID}\\?directory=`));
    });
    await step(page, 'palette', async () => {
      await page.goto(`${keel.url}/ui/routing`);
      await page.getByRole('heading', { name: 'Routing dashboard' }).waitFor();
      await page.keyboard.press('Control+K');
      await page.getByRole('textbox', { name: 'Go to or run' }).fill('seeded');
      await page.getByRole('option', { name: /Session\s*Seeded conversation/ }).waitFor();
      await page.screenshot({ path: `${SHOTS}/palette-1440-light.png` });
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`/ui/sessions/${sessionID}\\?directory=`));
      await page.getByRole('button', { name: 'Share', exact: true }).waitFor();
      await page.keyboard.press('Control+K');
      await page.getByRole('textbox', { name: 'Go to or run' }).fill('share this');
      await page.keyboard.press('Enter');
      await page.getByRole('textbox', { name: 'Share link' }).waitFor();
      await page.getByRole('button', { name: 'Unshare' }).click();
      await page.getByRole('button', { name: 'Share', exact: true }).waitFor();
    });
  });

  it('keeps the prompt box and the pending permission in view at 1440×700, wherever the conversation is scrolled', async () => {
    const inView = async (which: 'permission' | 'prompt') => {
      const target = which === 'permission' ? page.getByRole('alertdialog') : page.getByRole('textbox', { name: 'Prompt' });
      const box = await target.first().boundingBox();
      expect(box).not.toBeNull();
      expect(box!.y).toBeGreaterThanOrEqual(0);
      expect(box!.y + box!.height).toBeLessThanOrEqual(700);
    };
    await step(page, 'dock', async () => {
      await page.goto(`${keel.url}/ui/sessions/${sessionID}?directory=${encodeURIComponent(project)}`);
      await page.getByRole('alertdialog', { name: 'Permission: rm -rf build' }).waitFor();
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: `${SHOTS}/dock-top-1440-light.png` });
      await inView('permission');
      await inView('prompt');
      // A tool call expanded in the middle of the conversation pushes nothing out of view.
      const summary = page.locator('[data-part="tool"] summary').first();
      await summary.evaluate((element) => {
        element.scrollIntoView({ block: 'start' });
        window.scrollBy(0, -120);
      });
      // The disclosure arrow (the drawn chevron) is centred on the tool name's line, not a few pixels above it.
      const arrow = await summary.locator('.keel-summary-arrow svg').boundingBox();
      const name = await summary.getByText('bash', { exact: true }).boundingBox();
      if (!arrow || !name) throw new Error('the tool row has no arrow or no tool name on screen');
      expect(Math.abs(arrow.y + arrow.height / 2 - (name.y + name.height / 2))).toBeLessThanOrEqual(1);
      await page.locator('[data-part="tool"]').first().screenshot({ path: `${SHOTS}/tool-row-1440-light.png` });
      await summary.click();
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight / 2));
      await inView('permission');
      await inView('prompt');
      await page.screenshot({ path: `${SHOTS}/dock-1440-light.png` });
      await page.getByRole('alertdialog').getByRole('button', { name: 'Reject' }).click();
      await page.getByRole('alertdialog').waitFor({ state: 'detached' });
      await inView('prompt');
    });
  });

  it('shows the files as a tree from the root, highlighted, with changes marked and the session diff per file', async () => {
    await step(page, 'files-tree', async () => {
      await page.goto(`${keel.url}/ui/sessions/files?directory=${encodeURIComponent(project)}`);
      const tree = page.getByRole('navigation', { name: 'File tree' });
      // Root files as /file?path= returns them, directories first.
      await tree.getByRole('button', { name: 'README.md' }).waitFor();
      await tree.getByRole('button', { name: 'package.json' }).waitFor();
      // src/ holds a changed file: marked before it is opened; opening it lists it (no "is a directory" error).
      await tree.getByRole('button', { name: 'src/ (contains changes)' }).click();
      const app = tree.getByRole('button', { name: /app\.ts/ });
      await app.getByText('modified').waitFor();
      await app.click();
      const viewer = page.getByRole('region', { name: 'File src/app.ts' });
      await viewer.locator('.hljs-keyword', { hasText: 'function' }).first().waitFor();
      expect(await page.getByText('is a directory').count()).toBe(0);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/files-1440-light.png` });
    });
    await step(page, 'files-session-diff', async () => {
      await page.getByLabel('Changes of session').click();
      await page.getByRole('option', { name: 'Seeded conversation' }).click();
      const changed = page.getByRole('region', { name: 'Changed by the session' });
      await changed.getByRole('button', { name: /src\/app\.ts/ }).click();
      const diff = page.getByRole('region', { name: 'Changes to src/app.ts' });
      await diff.getByText('+  return `hi ${name}`;').waitFor();
      await diff.getByText('-  return `hello ${name}`;').waitFor();
      await page.screenshot({ path: `${SHOTS}/files-diff-1440-light.png` });
    });
    expect(errors).toEqual([]);
  });

  it('reads at 390 px in the dark theme', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    await phone.request.post(`${keel.url}/keel/login`, { data: { password: PASSWORD } });
    const small = await phone.newPage();
    const phoneErrors = collectConsoleErrors(small);
    await step(small, 'phone', async () => {
      await small.goto(`${keel.url}/ui/sessions?directory=${encodeURIComponent(project)}`);
      await small.getByRole('link', { name: /Seeded conversation/ }).waitFor();
      await small.screenshot({ path: `${SHOTS}/sessions-390-dark.png` });
      await small.goto(`${keel.url}/ui/sessions/${sessionID}?directory=${encodeURIComponent(project)}`);
      await small.getByRole('textbox', { name: 'Prompt' }).waitFor();
      await small.screenshot({ path: `${SHOTS}/dock-390-dark.png` });
      // A tool row's disclosure arrow stays on its tool name's line, however the title after it wraps.
      const summary = small.locator('[data-part="tool"] summary').first();
      await summary.evaluate((element) => element.scrollIntoView({ block: 'center' }));
      const arrow = await summary.locator('.keel-summary-arrow').boundingBox();
      const name = await summary.getByText('bash', { exact: true }).boundingBox();
      if (!arrow || !name) throw new Error('the tool row has no arrow or no tool name on screen');
      expect(arrow.x + arrow.width).toBeLessThanOrEqual(name.x);
      expect(Math.abs(arrow.y + arrow.height / 2 - (name.y + name.height / 2))).toBeLessThan(name.height / 2);
      await small.locator('[data-part="tool"]').first().screenshot({ path: `${SHOTS}/tool-row-390-dark.png` });
      await small.goto(`${keel.url}/ui/sessions/files?directory=${encodeURIComponent(project)}&file=src%2Fapp.ts`);
      await small.locator('.hljs-keyword').first().waitFor();
      await small.screenshot({ path: `${SHOTS}/files-390-dark.png`, fullPage: true });
      expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    });
    expect(phoneErrors).toEqual([]);
    await phone.close();
  });
});
