import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFiles } from './support/config-home';
import { startKeel, tempDir } from './support/keel';
import { attachTui, TuiVersion } from './support/opencode-tui';
import { RouteRecorder } from './support/route-recorder';
import { ScriptedProvider } from './support/scripted-provider';
import { KEY, TerminalScreen } from './support/terminal-screen';

/** Screen waits are generous: the TUI, Keel and the test share two loaded cores. */
const SCREEN_MS = 60_000;
const STEP_MS = 180_000;

const README = '# demo\nhello\n';
const GREET_SKILL = '---\nname: greet\ndescription: Say hello nicely\n---\nGreet the user warmly.\n';

/** A scripted session against Keel: a git project, the model server, Keel, a recorder of the TUI's requests, the TUI. */
async function startSession(version: TuiVersion) {
  const scripted = await ScriptedProvider.start();
  const dir = tempDir(`keel-tui-${version}-`);
  writeFiles(dir, {
    'README.md': README,
    'opencode.json': JSON.stringify({ ...scripted.config(), permission: { bash: 'ask' } }),
    '.opencode/skill/greet/SKILL.md': GREET_SKILL,
  });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  const keel = await startKeel();
  const recorder = await RouteRecorder.start(keel.url);
  const tui = attachTui(version, recorder.url, dir);
  return {
    scripted,
    dir,
    keel,
    recorder,
    tui,
    screen: tui.screen,
    close: async () => {
      await tui.close();
      await recorder.close();
      await keel.close();
      await scripted.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
type Session = Awaited<ReturnType<typeof startSession>>;

/** Resolves once no session of the directory is running (the turn the TUI started has ended). */
async function idle(s: Session): Promise<void> {
  const until = Date.now() + SCREEN_MS;
  while (Date.now() < until) {
    const status = (await (await fetch(`${s.keel.url}/session/status?directory=${encodeURIComponent(s.dir)}`)).json()) as Record<string, unknown>;
    if (Object.keys(status).length === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`a session is still running; screen:\n${s.screen.text()}`);
}

/** The prompt holds a slash word (the line above the agent and model): a command typed and not yet run. */
const slashInPrompt = /┃\s+\/\S*\n\s*┃\n\s*┃\s+Build\b/;

/**
 * Runs a slash command as a user does: type it, wait for the completion list to offer it, press enter
 * until the prompt lets go of it (the first enter may only complete the word), see the command's `frame`
 * come up (a dialog or viewer, maybe still loading) and wait for it to show `opened`. A loaded CI run
 * once ended at an empty prompt with no viewer after the prompt had let go of /diff; a user would type
 * the command again, and so does this when the frame does not come or goes away without showing `opened`.
 */
async function slash(screen: TerminalScreen, name: string, offered: RegExp, frame: RegExp, opened: RegExp): Promise<string> {
  const seen = (predicate: (text: string) => boolean, ms: number) => screen.waitFor(predicate, ms).then(
    () => true,
    () => false,
  );
  for (let typed = 0; typed < 3; typed++) {
    await screen.type(`/${name}`);
    await screen.waitFor(offered, SCREEN_MS, `/${name} offered`);
    for (let enters = 0; enters === 0 || slashInPrompt.test(screen.text()); enters++) {
      if (enters === 4) throw new Error(`/${name} stayed in the prompt after four enters; screen:\n${screen.text()}`);
      screen.write(KEY.enter);
      await seen((text) => opened.test(text) || !slashInPrompt.test(text), 5_000);
    }
    const came = await seen((text) => opened.test(text) || frame.test(text), 15_000);
    if (screen.exited) break; // the TUI is gone: typing again would only write into a closed terminal
    if (!came) continue;
    await seen((text) => opened.test(text) || !frame.test(text), SCREEN_MS);
    if (opened.test(screen.text())) return screen.text();
    if (frame.test(screen.text()) || screen.exited) break; // came up and never showed `opened`, or the TUI is gone
  }
  throw new Error(`/${name} did not open${screen.exited ? ' (the TUI exited)' : ''}; screen:\n${screen.text()}`);
}

const permissionAsked = /Permission required[\s\S]*echo more >> README\.md/;

/**
 * Moves a dialog's selection right to the last of `options`, seeing each key arrive: the selected option
 * takes the style "Allow once" had. A key sent before the dialog listens is lost (a loaded machine once chose
 * "Allow always" for Reject that way), so it is sent again when the selection has not moved within 2 s; and
 * a key only slow to arrive may then land after its repeat (a loaded CI run chose "Allow once" for Reject
 * that way), so the keys go on until the last option is selected and stays so for 500 ms.
 */
async function moveSelection(screen: TerminalScreen, options: string[]): Promise<void> {
  const selected = screen.styleOf('Allow once');
  expect(selected).toBeDefined();
  expect(options.map((option) => screen.styleOf(option))).not.toContain(selected);
  const last = options.at(-1)!;
  const current = () => ['Allow once', ...options].find((option) => screen.styleOf(option) === selected);
  for (let key = 0; key < 12; key++) {
    if (current() === last) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (current() === last) return;
      continue;
    }
    const before = current();
    screen.write(KEY.right);
    await screen.waitFor(() => current() !== before, 2_000, 'the selection moved').catch(() => undefined);
  }
  throw new Error(`${last} did not stay selected; screen:\n${screen.text()}`);
}

/** The steps both TUIs share: a prompt mentioning a file with @, a permission rejected then allowed, live streaming. */
function sharedSteps(get: () => Session) {
  it(
    '@ completes a file name; the prompt carries the file; Reject on the permission dialog stops the tool',
    async () => {
      const s = get();
      const { screen, scripted } = s;
      await screen.type('@READ');
      await screen.waitFor(/┃ README\.md/, SCREEN_MS, 'README.md offered for @READ');
      screen.write(KEY.enter);
      await screen.waitFor(/@README\.md/, SCREEN_MS, 'the mention in the prompt');
      scripted.reply({ steps: [{ text: 'I will add a line. ' }, { tool: 'bash', args: { command: 'echo more >> README.md', description: 'Append to README' } }] });
      await screen.type(' append a line');
      screen.write(KEY.enter);
      await screen.waitFor(permissionAsked, SCREEN_MS, 'the permission dialog');
      await screen.waitFor(/Allow once\s+Allow always\s+Reject/, SCREEN_MS, 'the dialog options');
      // The file went to the model with the prompt.
      expect(JSON.stringify(scripted.prompts.at(-1)!.body.messages)).toContain('hello');
      await moveSelection(screen, ['Allow always', 'Reject']);
      screen.write(KEY.enter);
      await screen.waitFor((text) => !/Permission required/.test(text), SCREEN_MS, 'the dialog closed');
      await idle(s);
      expect(readFileSync(join(s.dir, 'README.md'), 'utf8')).toBe(README);
      await screen.waitFor(/I will add a line\./, SCREEN_MS, 'the reply before the tool');
      const replies = s.recorder.calls.filter((c) => /^\/permission\/per_\w+\/reply/.test(c.url));
      expect(replies[0]).toMatchObject({ method: 'POST', status: 200 });
    },
    STEP_MS,
  );

  it(
    'Allow once on the permission dialog runs the tool and the turn goes on',
    async () => {
      const s = get();
      const { screen, scripted } = s;
      scripted.reply(
        { steps: [{ text: 'Trying again. ' }, { tool: 'bash', args: { command: 'echo more >> README.md', description: 'Append to README' } }] },
        { steps: [{ text: 'Appended one line.' }] },
      );
      await screen.type('please do it');
      screen.write(KEY.enter);
      await screen.waitFor(permissionAsked, SCREEN_MS, 'the permission dialog');
      await screen.waitFor(/Allow once\s+Allow always\s+Reject/, SCREEN_MS, 'the dialog options');
      screen.write(KEY.enter);
      await screen.waitFor(/Appended one line\./, SCREEN_MS, 'the reply after the tool');
      await idle(s);
      expect(readFileSync(join(s.dir, 'README.md'), 'utf8')).toBe(`${README}more\n`);
    },
    STEP_MS,
  );

  it(
    'shows streamed text while the model is still writing',
    async () => {
      const s = get();
      const { screen, scripted } = s;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      scripted.reply({ steps: [{ text: 'Streaming begins' }, { until: gate }, { text: ' and streaming ends.' }] });
      await screen.type('stream a reply');
      screen.write(KEY.enter);
      const mid = await screen.waitFor(/Streaming begins/, SCREEN_MS, 'the first chunk on screen');
      expect(mid).not.toMatch(/streaming ends/);
      release();
      await screen.waitFor(/Streaming begins and streaming ends\./, SCREEN_MS, 'the whole reply');
      await idle(s);
    },
    STEP_MS,
  );
}

/** Last: every request the TUI made in the steps before was answered. */
function requestsAnswered(version: TuiVersion, get: () => Session) {
  it(
    `every request the ${version} TUI made was answered (none 404 or 5xx)`,
    () => {
      const s = get();
      const failed = s.recorder.calls.filter((c) => c.status >= 400);
      // 1.1.11 sends a stray "once" after "reject" for the same request (its bug); Keel says it is already answered.
      const expected = version === '1.1.11' ? failed.filter((c) => /^\/permission\/per_\w+\/reply/.test(c.url) && c.status === 404) : [];
      expect(failed.map((c) => `${c.status} ${c.method} ${c.url}`)).toEqual(expected.map((c) => `${c.status} ${c.method} ${c.url}`));
      expect(s.recorder.calls.length).toBeGreaterThan(20);
    },
    STEP_MS,
  );
}

/**
 * The opencode TUIs people run (1.18.33 and 1.1.11, the official binaries from npm) attached to Keel
 * in a pseudo-terminal, with a scripted model on loopback; what the test checks is the screen.
 */
describe('the opencode 1.18.33 TUI attached to Keel (issue 22)', () => {
  let s: Session;

  beforeAll(async () => {
    s = await startSession('1.18.33');
    await s.screen.waitFor(/Ask anything/, SCREEN_MS, 'the prompt');
    await s.screen.waitFor(/scripted-model/, SCREEN_MS, 'the model in the prompt');
  }, STEP_MS);

  afterAll(async () => {
    await s?.close();
  });

  it('starts: the prompt, the agent and model, the directory and branch', async () => {
    expect(s.screen.text()).toMatch(/Build · scripted-model/);
    await s.screen.waitFor((text) => text.includes(`${s.dir}:main`), SCREEN_MS, 'the directory and branch');
  });

  sharedSteps(() => s);

  it(
    '/diff shows the working tree change',
    async () => {
      const { screen } = s;
      const viewer = await slash(screen, 'diff', /\/diff\s+Open diff viewer/, /Diff working tree/, /Diff working tree[\s\S]*README\.md[\s\S]*\+ more/);
      expect(viewer).toMatch(/README\.md\s+\+1 -0/);
      expect(viewer).toMatch(/2\s+hello/);
      screen.write(KEY.escape);
      await screen.waitFor((text) => !/Diff working tree/.test(text), SCREEN_MS, 'the viewer closed');
      expect(s.recorder.calls).toContainEqual(expect.objectContaining({ method: 'GET', url: expect.stringMatching(/^\/vcs\/diff\?.*mode=git&context=12/), status: 200 }));
    },
    STEP_MS,
  );

  it(
    '/skills lists the project’s skill; choosing it runs it as /greet',
    async () => {
      const { screen, scripted } = s;
      await slash(screen, 'skills', /\/skills\s+Skills/, /Search skills/, /Search skills[\s\S]*greet\s+Say hello nicely/);
      screen.write(KEY.enter);
      await screen.waitFor(/┃\s+\/greet/, SCREEN_MS, '/greet in the prompt');
      scripted.reply({ steps: [{ text: 'Hello there, friend!' }] });
      screen.write(KEY.enter);
      await screen.waitFor(/Hello there, friend!/, SCREEN_MS, 'the skill’s reply');
      expect(JSON.stringify(scripted.prompts.at(-1)!.body.messages)).toContain('Greet the user warmly.');
      await idle(s);
    },
    STEP_MS,
  );

  requestsAnswered('1.18.33', () => s);
});

describe('the opencode 1.1.11 TUI attached to Keel (issue 22)', () => {
  let s: Session;

  beforeAll(async () => {
    s = await startSession('1.1.11');
    await s.screen.waitFor(/Ask anything/, SCREEN_MS, 'the prompt');
    await s.screen.waitFor(/scripted-model/, SCREEN_MS, 'the model in the prompt');
  }, STEP_MS);

  afterAll(async () => {
    await s?.close();
  });

  it('starts: the prompt, the agent and model, the directory and branch', async () => {
    expect(s.screen.text()).toMatch(/Build\s+scripted-model/);
    await s.screen.waitFor((text) => text.includes(`${s.dir}:main`), SCREEN_MS, 'the directory and branch');
  });

  sharedSteps(() => s);

  it(
    'offers the project’s skill among the slash commands (1.1 has no /skills or /diff)',
    async () => {
      const { screen } = s;
      await screen.type('/gre');
      await screen.waitFor(/\/greet\s+Say hello nicely/, SCREEN_MS, '/greet offered');
      for (let i = 0; i < 4; i++) screen.write(KEY.backspace);
      await screen.waitFor((text) => !/\/greet\s+Say hello/.test(text), SCREEN_MS, 'the list closed');
    },
    STEP_MS,
  );

  requestsAnswered('1.1.11', () => s);
});
