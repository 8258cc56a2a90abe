// The routes the opencode 1.18.33 TUI calls, and how many Keel answers like the reference server.
//
//   npm run build && npm install --prefix bench/reference && npm install --prefix test/clients
//   npx ts-node --transpile-only bench/tui-routes.ts [--keel-only] [--steps] [--calls <file.json>] [--from <file.json>]
//
// The same scripted session (every command of the TUI's command list, plus start, prompts with a
// tool and a permission dialog, @ completion) runs twice with the real 1.18.33 TUI in a
// pseudo-terminal: once attached to Keel (the built bundle), once to the reference opencode 1.18.33
// server (bench/reference), each behind a recording proxy, each on an identical project with a
// scripted model on loopback. It prints every distinct route (method and path, ids as {id}) the TUI
// called, the status each server gave, and whether Keel's answer has the reference's shape: every
// key the reference's JSON has, Keel's has too, with a value of the same JSON type; Keel may add
// keys. An array's shape is what all its elements share; an object keyed by ids or names (models,
// providers, headers…: MAPS below) is compared by the shape its values share, not by its keys.
// `--steps` prints each step's outcome.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFiles } from '../test/support/config-home';
import { attachTui, Tui } from '../test/support/opencode-tui';
import { RecordedCall, RouteRecorder } from '../test/support/route-recorder';
import { ScriptedProvider } from '../test/support/scripted-provider';
import { KEY, TerminalScreen } from '../test/support/terminal-screen';

interface Server {
  url: string;
  stop(): Promise<void>;
}

const argv = process.argv.slice(2);
const WAIT_MS = 30_000;
const README = '# demo\nhello\n';

/** The benches' own launchers (ES modules without types). */
const KEEL_LAUNCHER = './lib/keel-server.mjs';
const REFERENCE_LAUNCHER = './reference/start-reference.mjs';

/** Config both servers get besides the project's opencode.json (the reference's launcher needs it to stay offline). */
const CONFIG_CONTENT = JSON.stringify({ autoupdate: false, share: 'disabled' });

async function startKeel(): Promise<Server> {
  const { startKeel: start } = (await import(KEEL_LAUNCHER)) as { startKeel: (o: object) => Promise<Server> };
  return start({ allowedDirectories: tmpdir(), logLevel: 'error', env: { OPENCODE_CONFIG_CONTENT: CONFIG_CONTENT } }).then((keel) => ({ url: keel.url, stop: keel.stop }));
}

async function startReference(dir: string): Promise<Server> {
  const { startReference: start } = (await import(REFERENCE_LAUNCHER)) as {
    startReference: (o: object) => Promise<Server>;
  };
  // The reference's default keeps every provider off; the scripted one comes from opencode.json.
  return start({ cwd: dir, env: { OPENCODE_CONFIG_CONTENT: CONFIG_CONTENT } });
}

function project(scripted: ScriptedProvider): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'keel-tui-routes-')));
  writeFiles(dir, {
    'README.md': README,
    'opencode.json': JSON.stringify({ ...scripted.config(), permission: { bash: 'ask' } }),
    '.opencode/skill/greet/SKILL.md': '---\nname: greet\ndescription: Say hello nicely\n---\nGreet the user warmly.\n',
  });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  return dir;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The scripted session: each step is named so a run can say which ones did not go as planned. */
async function drive(screen: TerminalScreen, scripted: ScriptedProvider, log: (line: string) => void): Promise<void> {
  const step = async (name: string, run: () => Promise<unknown>) => {
    try {
      await run();
      log(`ok    ${name} (model asked ${scripted.prompts.length} times, ${scripted.pending()} replies left)`);
    } catch (error) {
      log(`FAIL  ${name}: ${String(error).split('\n')[0]}`);
      for (let i = 0; i < 3; i++) {
        screen.write(KEY.escape);
        await sleep(300);
      }
    }
    // Let the requests a step causes (and their refetches) finish before the next one.
    await sleep(1500);
  };
  const idleAgain = () => screen.waitFor((text) => !/esc interrupt/.test(text), WAIT_MS, 'idle');
  /** Type `/name`, pick it from the completion list; enter again only while the prompt still holds it. */
  const slash = async (name: string, opened?: RegExp) => {
    await screen.type(`/${name}`);
    await screen.waitFor(new RegExp(`/${name}\\s`), WAIT_MS, `/${name} offered`);
    const inPrompt = new RegExp(`^\\s*┃\\s{2}/${name}\\s*$`, 'm');
    const done = opened ?? ((text: string) => !inPrompt.test(text));
    for (let attempt = 0; ; attempt++) {
      screen.write(KEY.enter);
      try {
        await screen.waitFor(done, attempt < 2 ? 8_000 : WAIT_MS, `/${name} opened`);
        return;
      } catch (error) {
        if (attempt >= 2 || !inPrompt.test(screen.text())) throw error;
      }
    }
  };
  const close = async () => {
    screen.write(KEY.escape);
    await sleep(500);
  };
  const prompt = async (text: string, until: RegExp) => {
    await screen.type(text);
    screen.write(KEY.enter);
    await screen.waitFor(until, WAIT_MS, until.source);
  };
  const tool = { tool: 'bash', args: { command: 'echo more >> README.md', description: 'Append to README' } };

  await step('start', () => screen.waitFor(/Ask anything/, 60_000, 'the prompt'));
  await step('@ mention, a prompt with a tool, Reject', async () => {
    await screen.type('@READ');
    await screen.waitFor(/┃ README\.md/, WAIT_MS, 'README.md offered');
    screen.write(KEY.enter);
    scripted.reply({ steps: [{ text: 'I will add a line. ' }, tool] });
    await prompt(' append a line', /Allow once\s+Allow always\s+Reject/);
    screen.write(KEY.right);
    screen.write(KEY.right);
    screen.write(KEY.enter);
    await idleAgain();
  });
  await step('a prompt with a tool, Allow once', async () => {
    scripted.reply({ steps: [{ text: 'Trying again. ' }, tool] }, { steps: [{ reasoning: 'Done. ' }, { text: 'Appended one line.' }] });
    await prompt('please do it', /Allow once\s+Allow always\s+Reject/);
    screen.write(KEY.enter);
    await screen.waitFor(/Appended one line\./, WAIT_MS, 'the reply');
    await idleAgain();
  });
  await step('/diff, then its source switch (last turn)', async () => {
    await slash('diff', /Diff working tree/);
    await sleep(1000);
    screen.write('d');
    await screen.waitFor(/Switch source/, WAIT_MS, 'the source dialog');
    screen.write(KEY.down);
    screen.write(KEY.enter);
    await screen.waitFor(/Diff last turn/, WAIT_MS, 'the last turn');
    await close();
  });
  await step('/skills, then running the skill', async () => {
    await slash('skills', /greet\s+Say hello nicely/);
    screen.write(KEY.enter);
    await screen.waitFor(/┃\s+\/greet/, WAIT_MS, '/greet in the prompt');
    scripted.reply({ steps: [{ text: 'Hello there, friend!' }] });
    screen.write(KEY.enter);
    await screen.waitFor(/Hello there, friend!/, WAIT_MS, 'the reply');
    await idleAgain();
  });
  await step('/move', async () => {
    await slash('move', /Move session/);
    await close();
  });
  for (const [name, opened] of [
    ['status', /Status/],
    ['sessions', /Sessions/],
    ['models', /Select model|Models/],
    ['agents', /Select agent|Agents/],
    ['mcps', /MCP/],
    ['connect', /Connect a provider|Connect provider|providers/i],
    ['themes', /Themes/],
    ['help', /Help/],
    ['debug', /Debug/i],
    ['timeline', /Timeline|Jump to/i],
  ] as const) {
    await step(`/${name}`, async () => {
      await slash(name, opened);
      await close();
    });
  }
  await step('/thinking and /timestamps', async () => {
    await slash('thinking');
    await slash('timestamps');
  });
  await step('/rename', async () => {
    await slash('rename', /Rename Session/);
    for (let i = 0; i < 40; i++) screen.write(KEY.backspace);
    await screen.type('Renamed by the bench');
    screen.write(KEY.enter);
    await screen.waitFor((text) => !/Rename Session/.test(text), WAIT_MS, 'the dialog closed');
  });
  await step('/share and /unshare (each confirmed)', async () => {
    await slash('share', /Share Session/);
    screen.write(KEY.enter);
    await screen.waitFor((text) => !/Share Session/.test(text), WAIT_MS, 'shared');
    await sleep(1500);
    await slash('unshare');
    await sleep(500);
    if (/Unshare|unshare it/.test(screen.text())) screen.write(KEY.enter);
  });
  await step('/copy and /export', async () => {
    await slash('copy');
    await sleep(500);
    await slash('export');
    await sleep(1000);
    await close();
  });
  // Undo puts the undone prompt back in the input: cleared, so the next command is typed alone.
  const clearInput = () => {
    for (let i = 0; i < 80; i++) screen.write(KEY.backspace);
  };
  /** A command that runs a turn: make sure it was submitted (a command taking arguments waits in the input), then wait for the turn. */
  const runTurn = async (name: string) => {
    await slash(name);
    await sleep(1000);
    if (new RegExp(`^\\s*┃\\s{2}/${name}\\b`, 'm').test(screen.text())) screen.write(KEY.enter);
    await sleep(2000);
    await idleAgain();
  };
  await step('/undo and /redo', async () => {
    await slash('undo');
    await sleep(1500);
    clearInput();
    // Redo sends the undone prompt again: its reply.
    scripted.reply({ steps: [{ text: 'Hello again!' }] });
    await slash('redo');
    await sleep(2000);
    await idleAgain();
    clearInput();
  });
  await step('/compact', async () => {
    scripted.reply({ steps: [{ text: 'Summary of the session so far.' }] });
    await runTurn('compact');
  });
  await step('/fork', async () => {
    await slash('fork', /Fork/);
    screen.write(KEY.enter);
  });
  await step('/review', async () => {
    scripted.reply({ steps: [{ text: 'The change looks good.' }] }, { steps: [{ text: 'Reviewed.' }] });
    await runTurn('review');
  });
  await step('/init', async () => {
    scripted.reply({ steps: [{ text: 'AGENTS.md would say: run the tests.' }] });
    await runTurn('init');
  });
  await step('/editor', async () => {
    await slash('editor');
  });
  await step('/new', async () => {
    await slash('new', /Ask anything/);
  });
  await step('/exit', async () => {
    await slash('exit');
  });
}

/** `GET /session/{id}/message` etc.: ids and the project hash become `{id}`, query values dropped (names kept). */
function routeOf(call: RecordedCall): string {
  const [path, query = ''] = call.url.split('?');
  const template = path
    .split('/')
    .map((segment) => (/^(ses|msg|prt|per|pty|evt|wrk)_/.test(segment) || /^[0-9a-f]{40}$/.test(segment) || segment === 'global' && path.startsWith('/project/') ? '{id}' : segment))
    .join('/');
  const names = [...new Set(query.split('&').filter(Boolean).map((p) => decodeURIComponent(p.split('=')[0])))].filter((n) => n !== 'directory' && n !== 'location[directory]').sort();
  return `${call.method} ${template}${names.length ? `?${names.join('&')}` : ''}`;
}

type Shape = string | { [key: string]: Shape } | Shape[];

/** Objects keyed by ids or names: their keys differ between two servers by nature. */
const MAPS = new Set(['models', 'default', 'provider', 'agent', 'mode', 'command', 'keybinds', 'variants', 'options', 'headers', 'body', 'settings', 'metadata', 'mcp', 'lsp', 'formatter', 'permission']);

/** The keys all of `shapes` (objects) have, each with the first one's shape. */
function common(shapes: Shape[]): Shape {
  const objects = shapes.filter((x): x is Record<string, Shape> => typeof x === 'object' && !Array.isArray(x));
  if (objects.length === 0) return shapes[0] ?? 'empty';
  return Object.fromEntries(Object.entries(objects[0]).filter(([key]) => objects.every((o) => key in o)));
}

function shapeOf(value: unknown, key = ''): Shape {
  if (Array.isArray(value)) return [common(value.map((v) => shapeOf(v)))];
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const entries = Object.entries(value);
  if (MAPS.has(key)) return { '{map}': entries.length ? common(entries.map(([k, v]) => shapeOf(v, k))) : 'empty' };
  return Object.fromEntries(entries.map(([k, v]) => [k, shapeOf(v, k)]));
}

/** Key paths of the reference's shape missing from Keel's (or with another type). */
function missing(reference: Shape, keel: Shape, path = '$'): string[] {
  if (reference === 'empty' || keel === 'empty') return [];
  if (Array.isArray(reference)) {
    if (!Array.isArray(keel)) return [`${path}: ${JSON.stringify(keel)} instead of an array`];
    return missing(reference[0], keel[0], `${path}[]`);
  }
  if (typeof reference === 'object') {
    if (typeof keel !== 'object' || Array.isArray(keel)) return [`${path}: ${JSON.stringify(keel)} instead of an object`];
    return Object.entries(reference).flatMap(([key, value]) => (key in keel ? missing(value, keel[key], `${path}.${key}`) : [`${path}.${key} missing`]));
  }
  return reference === keel ? [] : [`${path}: ${JSON.stringify(keel)} instead of ${reference}`];
}

function parsed(call: RecordedCall): unknown {
  if (call.contentType.startsWith('text/event-stream')) return 'event stream';
  if (!call.body) return undefined;
  try {
    return JSON.parse(call.body);
  } catch {
    return call.body.slice(0, 40);
  }
}

async function session(target: 'keel' | 'reference'): Promise<{ calls: RecordedCall[]; steps: string[] }> {
  const scripted = await ScriptedProvider.start();
  const dir = project(scripted);
  const server = target === 'keel' ? await startKeel() : await startReference(dir);
  const recorder = await RouteRecorder.start(server.url);
  let tui: Tui | undefined;
  const steps: string[] = [];
  try {
    tui = attachTui('1.18.33', recorder.url, dir, { cols: 120, rows: 45 });
    await drive(tui.screen, scripted, (line) => steps.push(line));
    await sleep(2000);
    return { calls: [...recorder.calls], steps };
  } finally {
    await tui?.close();
    await recorder.close();
    await server.stop();
    await scripted.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const started = new Date();
  const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const callsFile = option('--calls');
  const saved = option('--from');
  // `--from <file>`: the calls a `--calls` run saved, compared again without driving the TUI.
  const recorded = saved ? (JSON.parse(readFileSync(saved, 'utf8')) as { keel: RecordedCall[]; reference?: RecordedCall[] }) : undefined;
  const keel = recorded ? { calls: recorded.keel, steps: [] } : await session('keel');
  const reference = recorded ? (recorded.reference ? { calls: recorded.reference, steps: [] } : undefined) : argv.includes('--keel-only') ? undefined : await session('reference');
  // `--calls <file>`: every request of both sessions, for a closer look.
  if (callsFile) writeFileSync(callsFile, JSON.stringify({ keel: keel.calls, reference: reference?.calls }, null, 1));
  if (argv.includes('--steps')) {
    console.log('steps (keel):');
    for (const line of keel.steps) console.log(`  ${line}`);
    if (reference) {
      console.log('steps (reference):');
      for (const line of reference.steps) console.log(`  ${line}`);
    }
  }
  const byRoute = (calls: RecordedCall[]) => {
    const map = new Map<string, RecordedCall[]>();
    for (const call of calls) map.set(routeOf(call), [...(map.get(routeOf(call)) ?? []), call]);
    return map;
  };
  const keelRoutes = byRoute(keel.calls);
  const referenceRoutes = reference ? byRoute(reference.calls) : new Map<string, RecordedCall[]>();
  const routes = [...new Set([...keelRoutes.keys(), ...referenceRoutes.keys()])].sort((a, b) => a.split(' ')[1].localeCompare(b.split(' ')[1]) || a.localeCompare(b));
  let alike = 0;
  let calledByKeelSession = 0;
  console.log(`\nroute                                                        keel     reference  like the reference`);
  for (const route of routes) {
    const ours = keelRoutes.get(route);
    const theirs = referenceRoutes.get(route);
    if (ours) calledByKeelSession++;
    const statuses = (calls?: RecordedCall[]) => (calls ? [...new Set(calls.map((c) => c.status))].join(',') : '—');
    let verdict = '';
    if (ours && theirs) {
      const sameStatus = statuses(ours) === statuses(theirs);
      const problems = sameStatus ? missing(shapeOf(parsed(theirs[0])), shapeOf(parsed(ours[0]))) : [];
      if (sameStatus && problems.length === 0) {
        alike++;
        verdict = 'yes';
      } else verdict = sameStatus ? `no: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (+${problems.length - 3})` : ''}` : 'no: status';
    } else verdict = ours ? (reference ? 'not called by the reference session' : '') : 'not called against Keel';
    console.log(`${route.padEnd(60)} ${statuses(ours).padEnd(8)} ${statuses(theirs).padEnd(10)} ${verdict}`);
  }
  console.log(`\nopencode 1.18.33 TUI, scripted session of its commands, ${started.toISOString()}`);
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`distinct routes called against Keel: ${calledByKeelSession} (${keel.calls.length} requests); failed steps: ${keel.steps.filter((s) => s.startsWith('FAIL')).length}`);
  if (reference) {
    const both = routes.filter((r) => keelRoutes.has(r) && referenceRoutes.has(r)).length;
    console.log(`distinct routes called against the reference: ${referenceRoutes.size} (${reference.calls.length} requests); failed steps: ${reference.steps.filter((s) => s.startsWith('FAIL')).length}`);
    console.log(`routes called in both sessions: ${both}; answered like the reference (same status, the reference's keys and types): ${alike} of ${both}`);
  }
  const errors = keel.calls.filter((c) => c.status >= 400);
  console.log(`Keel answers with status >= 400: ${errors.length}`);
  for (const call of errors) console.log(`  ${call.status} ${call.method} ${call.url} ${call.requestBody.slice(0, 200)} → ${call.error ?? call.body.slice(0, 300)}`);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
