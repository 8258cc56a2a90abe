// Assistant streaming figures for Keel:
//   1. added latency of a text delta: from the scripted model server writing a chunk to the client
//      receiving its `message.part.updated` {delta} on /event (one chunk in flight at a time), p50/p99;
//   2. a 10,000-delta reply streamed as fast as the model server can write it (three times): every
//      delta must arrive once and in order; the server's RSS is read before (after a full GC), at its
//      peak during the reply (sampled every 20 ms), when the session is idle, and after a full GC.
//
// Usage (after `scripts/build-to.sh .dist-<you>`):
//   KEEL_DIST=$PWD/.dist-<you> node bench/assistant-latency.mjs [--chunks 1000] [--burst 10000]
// With DATABASE_URL=postgres://… the server uses that database (a fresh one is created and dropped).
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, numberOption, percentile, rssMb } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => numberOption(argv, name, fallback);
const CHUNKS = option('chunks', 1000);
const BURST = option('burst', 10_000);
const BURSTS = option('bursts', 3);
const here = dirname(fileURLToPath(import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The server's RSS once a full GC has run (SIGWINCH, see server-gc-signal.cjs) and memory stopped moving. */
async function settledRss(pid) {
  process.kill(pid, 'SIGWINCH');
  await sleep(500);
  let previous = rssMb(pid);
  for (let i = 0; i < 20; i++) {
    await sleep(250);
    const now = rssMb(pid);
    if (Math.abs(now - previous) < 0.5) return now;
    previous = now;
  }
  return previous;
}

/** Samples the server's RSS every 20 ms until stopped; resolves to the peak. */
function watchPeakRss(pid) {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  return () => (clearInterval(timer), Math.max(peak, rssMb(pid)));
}

/** The scripted OpenAI-compatible model: each reply is produced by `script(write)` (write = one SSE chunk). */
function startModelServer() {
  let script = async () => {};
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const body = JSON.parse(raw);
    const system = (body.messages ?? []).filter((m) => m.role === 'system').map((m) => m.content).join('\n');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.socket.setNoDelay(true);
    const chunk = (delta, finish = null, extra = {}) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    const write = (text) => (res.write(chunk({ content: text })) ? undefined : new Promise((r) => res.once('drain', r)));
    res.write(chunk({ role: 'assistant', content: '' }));
    if (/title for a conversation|title generator/i.test(system)) write('Bench');
    else await script(write);
    res.write(chunk({}, 'stop'));
    res.end(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\ndata: [DONE]\n\n`);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}/v1`, setScript: (s) => (script = s), close: () => server.close() })),
  );
}

function startAssistantKeel(databaseUrl) {
  return startKeel({
    databaseUrl,
    allowedDirectories: tmpdir(),
    env: {
      // Every streamed update carries the whole part (the reference wire format): a 10,000-delta reply is
      // ~300 MB of frames, and a reader that falls more than the default 8 MB behind is disconnected.
      KEEL_SSE_MAX_BUFFER: process.env.KEEL_SSE_MAX_BUFFER ?? String(1024 ** 3),
      NODE_OPTIONS: `--require ${join(here, 'server-gc-signal.cjs')} ${process.env.KEEL_BENCH_SERVER_NODE_OPTIONS ?? ''}`,
    },
    onOutput: (chunk) => process.env.KEEL_BENCH_VERBOSE && process.stderr.write(chunk),
  });
}

const PART_UPDATED = 'data: {"type":"message.part.updated"';
const DELTA_KEY = ',"delta":';

/** A data-only SSE reader calling `onFrame(parsed, receivedAt)` for every frame. */
function openEvents(url, onFrame) {
  let closing = false;
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => {
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (text) => {
        const at = performance.now();
        buffer += text;
        // Cut complete frames by index and trim the buffer once per chunk, so a backlog costs O(bytes).
        let start = 0;
        let end;
        while ((end = buffer.indexOf('\n\n', start)) >= 0) {
          const block = buffer.slice(start, end);
          start = end + 2;
          if (!block.startsWith('data: ')) continue;
          // Streamed part updates carry the whole part; read only the trailing delta so the client keeps up.
          const deltaAt = block.startsWith(PART_UPDATED) && block.endsWith('"}}') ? block.lastIndexOf(DELTA_KEY) : -1;
          if (deltaAt > 0) onFrame({ type: 'message.part.updated', properties: { delta: JSON.parse(block.slice(deltaAt + DELTA_KEY.length, -2)) } }, at);
          else onFrame(JSON.parse(block.slice(6)), at);
        }
        buffer = buffer.slice(start);
      });
      res.on('error', (error) => closing || console.error('event stream error', error));
      req.on('error', (error) => console.error('event request error', error));
      res.on('close', () => {
        if (!closing) console.error('event stream closed by the server (reader more than KEEL_SSE_MAX_BUFFER behind)');
      });
      resolve({ close: () => ((closing = true), req.destroy()) });
    });
    req.on('error', reject);
  });
}

async function post(url, body) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

async function main() {
  const model = await startModelServer();
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'keel-bench-assistant-')));
  writeFileSync(
    join(dir, 'opencode.json'),
    JSON.stringify({
      provider: { bench: { npm: '@ai-sdk/openai-compatible', name: 'Bench', options: { baseURL: model.url, apiKey: 'x' }, models: { m: { name: 'm', tool_call: true } } } },
      model: 'bench/m',
      small_model: 'bench/m',
    }),
  );
  const database = await freshDatabase();
  const keel = await startAssistantKeel(database.url);
  process.once('exit', () => {
    try {
      process.kill(keel.pid, 'SIGKILL');
    } catch {
      // already stopped
    }
  });
  const q = `?directory=${encodeURIComponent(dir)}`;
  let onDelta = () => {};
  let onIdle = () => {};
  const events = await openEvents(`${keel.url}/event${q}`, (frame, at) => {
    if (frame.type === 'message.part.updated' && frame.properties.delta !== undefined) onDelta(frame.properties.delta, at);
    else if (frame.type === 'session.idle') onIdle(frame.properties.sessionID);
    else if (frame.type === 'server.instance.disposed') console.error('instance disposed', JSON.stringify(frame));
  });
  const session = await post(`${keel.url}/session${q}`, {});
  const idle = () => new Promise((r) => (onIdle = (id) => id === session.id && r()));

  // 1. one chunk in flight: write, wait for its delta on /event, record the gap.
  const latencies = [];
  model.setScript(async (write) => {
    for (let i = 0; i < CHUNKS + 20; i++) {
      const text = `t${i} `;
      const seen = new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`delta ${i} not seen within 5 s`)), 5000);
        onDelta = (delta, at) => delta === text && (clearTimeout(timer), resolve(at));
      });
      const sent = performance.now();
      write(text);
      const at = await seen;
      if (i >= 20) latencies.push(at - sent); // the first chunks warm up the JIT
    }
  });
  const warmIdle = idle();
  await post(`${keel.url}/session/${session.id}/message${q}`, { parts: [{ type: 'text', text: 'latency' }] });
  await warmIdle;
  latencies.sort((a, b) => a - b);

  // 2. a burst of BURST deltas written back to back.
  const burst = async () => {
    const received = [];
    onDelta = (delta) => received.push(delta);
    model.setScript(async (write) => {
      for (let i = 0; i < BURST; i++) await write(`b${i} `);
    });
    let timer;
    const done = Promise.race([idle(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`burst: idle not seen within 120 s (${received.length} deltas)`)), 120_000)))]).finally(() => clearTimeout(timer));
    const stopWatching = watchPeakRss(keel.pid);
    const started = performance.now();
    await post(`${keel.url}/session/${session.id}/message${q}`, { parts: [{ type: 'text', text: 'burst' }] });
    await done;
    const elapsed = performance.now() - started;
    const peak = stopWatching();
    // Every delta exactly once, in order: any drop, duplicate or swap breaks the sequence.
    let inOrder = received.length === BURST;
    for (let i = 0; inOrder && i < BURST; i++) inOrder = received[i] === `b${i} `;
    return { received: received.length, inOrder, elapsed, peak, after: rssMb(keel.pid), settled: await settledRss(keel.pid) };
  };
  const rssBefore = await settledRss(keel.pid);
  const bursts = [];
  for (let i = 0; i < BURSTS; i++) bursts.push(await burst());

  events.close();
  await keel.stop();
  model.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });

  console.log(`# assistant-latency — ${new Date().toISOString()}`);
  console.log(`machine: ${machineLine()}; database: ${database.url ? 'postgres' : 'sqlite'}`);
  console.log(`command: KEEL_DIST=${process.env.KEEL_DIST ?? 'dist'} node bench/assistant-latency.mjs --chunks ${CHUNKS} --burst ${BURST} --bursts ${BURSTS}`);
  console.log(`delta latency (model chunk written -> /event delta received), ${latencies.length} chunks: p50 ${percentile(latencies, 50).toFixed(3)} ms, p99 ${percentile(latencies, 99).toFixed(3)} ms, max ${latencies.at(-1).toFixed(3)} ms`);
  console.log(`server RSS before the bursts (after a full GC): ${rssBefore.toFixed(1)} MB`);
  bursts.forEach((run, i) =>
    console.log(
      `burst ${i + 1}: ${run.received}/${BURST} deltas, in order: ${run.inOrder}, ${run.elapsed.toFixed(0)} ms (${((BURST / run.elapsed) * 1000).toFixed(0)} deltas/s); ` +
        `server RSS peak ${run.peak.toFixed(1)} MB, at idle ${run.after.toFixed(1)} MB, after a full GC ${run.settled.toFixed(1)} MB`,
    ),
  );
  if (bursts.some((run) => !run.inOrder)) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
