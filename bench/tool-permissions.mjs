// What a client reads of a tool call, on Keel and on the reference opencode 1.18.33 server, case by case:
// the `permission.asked` request (its `patterns`, `always`, `metadata`) and the finished tool part.
//
//   npm run build && npm install --prefix bench/reference && node bench/tool-permissions.mjs
//
// Each case runs once on each server, in a fresh project directory holding the same files, with one
// scripted OpenAI-compatible model on loopback: the model calls the tool, the permission is answered
// `once`, the model ends the turn. Paths, ids and timestamps are written as <dir>, <id> and <time>;
// every other byte is compared. It prints `same` or each field that differs, and Keel's extra fields.
import http from 'node:http';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKeel } from './lib/keel-server.mjs';
import { machineLine } from './lib/figures.mjs';
import { startReference } from './reference/start-reference.mjs';

const bash = (command) => ({ tool: 'bash', args: { command, description: 'Run it' }, permission: { bash: 'ask' } });
const CASES = [
  ['bash, one command', bash('echo more >> README.md')],
  ['bash, cd and quotes', bash('cd sub && git status && ls "a b" | grep x')],
  ['bash, substitution and assignment', bash('echo $(date) && FOO=1 ls')],
  ['bash, cd alone (no request)', bash('cd sub')],
  ['write a new file', { tool: 'write', args: { filePath: 'new.txt', content: 'x' }, permission: { edit: 'ask' } }],
  ['edit indented lines', { tool: 'edit', args: { filePath: 'code.py', oldString: 'a = 1', newString: 'a = 3' }, permission: { edit: 'ask' } }],
  ['webfetch', { tool: 'webfetch', args: { url: 'http://127.0.0.1:9/page', format: 'text' }, permission: { webfetch: 'ask' } }],
];
const FILES = { 'README.md': '# Notes\n', 'code.py': 'def f():\n    a = 1\n\n    b = 2\n' };

/** The scripted model: the case's tool call first, then a closing text once the tool's result comes back. */
function startModel() {
  let call = { tool: 'bash', args: {} };
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    const chunk = (delta, finish = null) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: '' }));
    const titling = !body.tools?.length;
    if (!titling && !body.messages.some((m) => m.role === 'tool')) {
      res.write(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: call.tool, arguments: JSON.stringify(call.args) } }] }));
      res.write(chunk({}, 'tool_calls'));
    } else {
      res.write(chunk({ content: titling ? 'Title' : 'Done.' }));
      res.write(chunk({}, 'stop'));
    }
    res.end(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\ndata: [DONE]\n\n`);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}/v1`, use: (c) => (call = c), close: () => server.close() })),
  );
}

/** Runs one case on a server: what `permission.asked` carried and the tool part the turn ended with. */
async function runCase(url, dir) {
  const q = `?directory=${encodeURIComponent(dir)}`;
  const events = [];
  const stream = http.get(`${url}/event${q}`, (res) => {
    let buffer = '';
    res.on('data', (text) => {
      buffer += text;
      for (let end; (end = buffer.indexOf('\n\n')) >= 0; buffer = buffer.slice(end + 2)) {
        const frame = buffer.slice(0, end);
        if (frame.startsWith('data: ')) events.push(JSON.parse(frame.slice(6)));
      }
    });
  });
  const call = (path, method = 'GET', body) =>
    fetch(`${url}${path}${q}`, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) }).then((r) => (r.status === 204 ? null : r.json()));
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const session = await call('/session', 'POST', {});
    await call(`/session/${session.id}/prompt_async`, 'POST', { parts: [{ type: 'text', text: 'go' }] });
    const seen = (type) => events.find((e) => e.type === type && e.properties.sessionID === session.id);
    let asked;
    for (const until = Date.now() + 10_000; Date.now() < until && !seen('session.idle'); await new Promise((r) => setTimeout(r, 20))) {
      asked ??= seen('permission.asked');
      if (asked && !asked.answered) {
        asked.answered = true;
        await call(`/permission/${asked.properties.id}/reply`, 'POST', { reply: 'once' });
      }
    }
    const messages = await call(`/session/${session.id}/message`);
    const tool = messages.flatMap((m) => m.parts).find((p) => p.type === 'tool');
    return { 'permission.asked': asked?.properties ?? null, 'tool part': tool ? { title: tool.state.title, status: tool.state.status, metadata: tool.state.metadata } : null };
  } finally {
    stream.destroy();
  }
}

/** The JSON with the case's directory, ids and timestamps written as placeholders. */
function normalized(value, dir) {
  const text = JSON.stringify(value)
    .replaceAll(dir, '<dir>')
    .replaceAll(dir.slice(1), '<dir>')
    .replace(/"(per|ses|msg|prt|call)_[A-Za-z0-9]+"/g, '"<id>"')
    .replace(/"(created|time)":\d+/g, '"$1":"<time>"');
  return JSON.parse(text);
}

/** Each leaf path where the two differ: [path, reference, keel] (undefined when one has none). */
function differences(ref, keel, path = '') {
  if (typeof ref === 'object' && ref && typeof keel === 'object' && keel && !Array.isArray(ref) && !Array.isArray(keel)) {
    return [...new Set([...Object.keys(ref), ...Object.keys(keel)])].flatMap((key) => differences(ref[key], keel[key], `${path}.${key}`));
  }
  return JSON.stringify(ref) === JSON.stringify(keel) ? [] : [[path, ref, keel]];
}

/** A project holding the same files on both servers, its opencode.json included (the reference also gets it from the environment). */
function projectDir(name, config) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `keel-bench-${name}-`)));
  for (const [file, content] of Object.entries({ ...FILES, 'opencode.json': JSON.stringify(config) })) writeFileSync(join(dir, file), content);
  return dir;
}

const model = await startModel();
const provider = { bench: { npm: '@ai-sdk/openai-compatible', name: 'Bench', options: { baseURL: model.url, apiKey: 'x' }, models: { m: { name: 'm', tool_call: true } } } };
const configOf = (permission) => ({ provider, model: 'bench/m', small_model: 'bench/m', permission });

console.log(`# tool permissions beside the reference: ${new Date().toISOString()}  ${machineLine()}`);
const results = { reference: [], keel: [] };
// The reference reads its config from the environment at start: one server per case.
for (const [, c] of CASES) {
  model.use(c);
  const dir = projectDir('ref', configOf(c.permission));
  const ref = await startReference({ cwd: dir, env: { OPENCODE_CONFIG_CONTENT: JSON.stringify({ autoupdate: false, share: 'disabled', ...configOf(c.permission) }) } });
  try {
    results.reference.push(normalized(await runCase(ref.url, dir), dir));
  } finally {
    await ref.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
const keel = await startKeel({ allowedDirectories: realpathSync(tmpdir()) });
try {
  for (const [, c] of CASES) {
    model.use(c);
    const dir = projectDir('keel', configOf(c.permission));
    results.keel.push(normalized(await runCase(keel.url, dir), dir));
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  await keel.stop();
  model.close();
}

const same = { 'permission.asked': 0, 'tool part': 0 };
CASES.forEach(([name], i) => {
  console.log(`\n## ${name}`);
  for (const part of Object.keys(same)) {
    const found = differences(results.reference[i][part], results.keel[i][part]);
    const differing = found.filter(([, ref]) => ref !== undefined);
    const extra = found.filter(([, ref]) => ref === undefined).map(([path]) => path);
    if (differing.length === 0) same[part]++;
    console.log(`${part}: ${differing.length === 0 ? 'same' : `${differing.length} field(s) differ`}${extra.length ? ` (Keel adds ${extra.join(', ')})` : ''}`);
    for (const [path, ref, kept] of differing) console.log(`  ${path}\n    reference ${JSON.stringify(ref)}\n    keel      ${JSON.stringify(kept)}`);
  }
});
console.log(`\nof ${CASES.length} cases, the same as the reference (Keel's added fields aside): permission.asked ${same['permission.asked']}, tool part ${same['tool part']}`);
