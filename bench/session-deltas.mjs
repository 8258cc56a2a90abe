// Delta-to-screen latency of the session console: a scripted model streams N text deltas at a fixed
// rate (default 1,000 at 200/s) into a session open in Chromium (/ui/sessions/<id>); each delta carries
// its sequence number, and the page notes when each number first appears in the document. Latency =
// time on screen − time the model server wrote the chunk (same machine, same epoch clock).
//
// Usage (after `bash scripts/build-to.sh`):
//   node bench/session-deltas.mjs [--deltas 1000] [--rate 200] [--paragraph 0]
// --paragraph N starts a new Markdown paragraph every N deltas (0: the whole reply is one paragraph).
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineLine, numberOption, percentile } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const argv = process.argv.slice(2);
const DELTAS = numberOption(argv, 'deltas', 1000);
const RATE = numberOption(argv, 'rate', 200);
const PARAGRAPH = numberOption(argv, 'paragraph', 0);
const now = () => performance.timeOrigin + performance.now();
const written = new Map();

const model = await new Promise((resolve) => {
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const body = JSON.parse(raw);
    const system = (body.messages ?? []).filter((m) => m.role === 'system').map((m) => m.content).join('\n');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.socket.setNoDelay(true);
    const chunk = (delta, finish = null) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }));
    if (/title for a conversation|title generator/i.test(system)) res.write(chunk({ content: 'Bench' }));
    else {
      const start = now();
      for (let i = 0; i < DELTAS; i++) {
        const due = start + (i * 1000) / RATE;
        const wait = due - now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        written.set(i, now());
        res.write(chunk({ content: `${PARAGRAPH > 0 && i > 0 && i % PARAGRAPH === 0 ? '\n\n' : ' '}d${i}x` }));
      }
    }
    res.write(chunk({}, 'stop'));
    res.end(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\ndata: [DONE]\n\n`);
  });
  server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}/v1`, close: () => server.close() }));
});

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'keel-bench-deltas-')));
writeFileSync(
  join(dir, 'opencode.json'),
  JSON.stringify({
    provider: { bench: { npm: '@ai-sdk/openai-compatible', name: 'Bench', options: { baseURL: model.url, apiKey: 'x' }, models: { m: { name: 'm' } } } },
    model: 'bench/m',
    small_model: 'bench/m',
  }),
);
const database = await freshDatabase();
const keel = await startKeel({ databaseUrl: database.url, allowedDirectories: tmpdir() });
const q = `directory=${encodeURIComponent(dir)}`;
const post = async (path, body) => {
  const response = await fetch(`${keel.url}${path}?${q}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
};

let browser;
try {
  const session = await post('/session', { title: 'Bench: deltas' });
  browser = await chromium.launch({ executablePath: process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${keel.url}/ui/sessions/${session.id}?${q}`);
  await page.getByRole('heading', { name: 'Bench: deltas' }).waitFor();
  await page.waitForTimeout(500); // the event stream is open
  await page.evaluate(() => {
    window.__seen = {};
    let next = 0;
    new MutationObserver(() => {
      const text = document.querySelector('[role="log"]')?.textContent ?? '';
      const at = performance.timeOrigin + performance.now();
      for (;;) {
        if (!text.includes(` d${next}x`) && !text.includes(`d${next}x`)) break;
        window.__seen[next++] = at;
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await post(`/session/${session.id}/prompt_async`, { parts: [{ type: 'text', text: 'stream' }] });
  await page.waitForFunction((n) => window.__seen[n - 1] !== undefined, DELTAS, { timeout: 120_000, polling: 200 });
  const seen = await page.evaluate(() => window.__seen);
  const latencies = [...written.entries()].map(([i, t]) => seen[i] - t).sort((a, b) => a - b);
  console.log(`session deltas bench — ${new Date().toISOString()} — ${machineLine()}`);
  console.log(`database: ${database.url ? 'PostgreSQL' : 'SQLite'}; ${DELTAS} deltas at ${RATE}/s into /ui/sessions/<id>${PARAGRAPH > 0 ? `, a paragraph every ${PARAGRAPH}` : ', one paragraph'}`);
  console.log(`delta written by the model server → on screen: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1).toFixed(1)} ms`);
} finally {
  await browser?.close();
  await keel.stop();
  await database.drop?.();
  model.close();
  rmSync(dir, { recursive: true, force: true });
}
