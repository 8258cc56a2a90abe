// Terminal figures over the PTY WebSocket, Keel beside the reference opencode server:
//   - output throughput: `cat` of a large file to a client that reads as fast as it can (MB/s);
//   - keystroke echo round trip: one key at a time to a raw-mode `cat`, p50/p99 over N keys.
//
// Usage (after `scripts/build-to.sh .dist-pty` and `npm install --prefix bench/reference`):
//   KEEL_DIST=$PWD/.dist-pty node bench/pty-terminal.mjs [--mb 100] [--keys 1000] [--runs 3] [--reference-runs 1] [--no-reference]
import { createWriteStream, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import WebSocket from 'ws';
import { machineLine, numberOption, percentile } from './lib/figures.mjs';
import { startKeel } from './lib/keel-server.mjs';
import { startReference } from './reference/start-reference.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => numberOption(argv, name, fallback);
const MB = option('mb', 100);
const KEYS = option('keys', 1000);
const RUNS = option('runs', 3);
// The reference moves about 1 MB/s here, so one 100 MB run already takes minutes.
const REFERENCE_RUNS = option('reference-runs', 1);
const WITH_REFERENCE = !argv.includes('--no-reference');
const DONE = '__BENCH_DONE__';

async function createPty(url, directory, body) {
  const response = await fetch(`${url}/pty?directory=${encodeURIComponent(directory)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST /pty: ${response.status} ${await response.text()}`);
  return response.json();
}

async function removePty(url, directory, id) {
  await fetch(`${url}/pty/${id}?directory=${encodeURIComponent(directory)}`, { method: 'DELETE' });
}

async function connect(url, directory, id) {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/pty/${id}/connect?directory=${encodeURIComponent(directory)}`);
  await once(socket, 'open');
  return socket;
}

/** Text frames only: the reference also sends a binary cursor frame on connect. */
function onText(socket, handler) {
  socket.on('message', (data, isBinary) => {
    if (!isBinary) handler(data);
  });
}

async function waitForText(socket, marker) {
  let seen = '';
  await new Promise((resolve) => {
    const handler = (data, isBinary) => {
      if (isBinary) return;
      seen = (seen + data.toString()).slice(-4096);
      if (seen.includes(marker)) {
        socket.off('message', handler);
        resolve();
      }
    };
    socket.on('message', handler);
  });
}

async function throughput(url, directory, file, bytes) {
  const pty = await createPty(url, directory, {
    command: '/bin/sh',
    args: ['-c', `read go; cat "$0"; printf '\\n%s\\n' ${DONE}; read end`, file],
  });
  const socket = await connect(url, directory, pty.id);
  let received = 0;
  let tail = '';
  const finished = new Promise((resolve) => {
    onText(socket, (data) => {
      received += data.length;
      tail = (tail + data.toString('latin1', Math.max(0, data.length - 64))).slice(-64);
      if (tail.includes(DONE)) resolve();
    });
  });
  const start = process.hrtime.bigint();
  socket.send('\r');
  await finished;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  socket.close();
  await removePty(url, directory, pty.id);
  return { mbps: bytes / 1e6 / seconds, seconds, received };
}

async function echoLatency(url, directory, keys) {
  // Gated by `read`, so READY is sent after the socket is attached and listened to.
  const pty = await createPty(url, directory, { command: '/bin/sh', args: ['-c', 'read go; stty raw -echo; echo READY; exec cat'] });
  const socket = await connect(url, directory, pty.id);
  const ready = waitForText(socket, 'READY');
  socket.send('\r');
  await ready;
  const samples = [];
  let pending;
  onText(socket, (data) => pending?.(data));
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i < keys + 50; i++) {
    const key = letters[i % letters.length];
    const echoed = new Promise((resolve) => {
      pending = (data) => {
        if (data.includes(key)) resolve();
      };
    });
    const start = process.hrtime.bigint();
    socket.send(key);
    await echoed;
    if (i >= 50) samples.push(Number(process.hrtime.bigint() - start) / 1e6); // 50 warm-up keys
  }
  socket.close();
  await removePty(url, directory, pty.id);
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(name, server, directory, file, bytes, count) {
  const runs = [];
  for (let i = 0; i < count; i++) runs.push(await throughput(server.url, directory, file, bytes));
  const latency = await echoLatency(server.url, directory, KEYS);
  const mbps = median(runs.map((r) => r.mbps));
  process.stdout.write(
    `${name.padEnd(22)} throughput ${mbps.toFixed(1).padStart(7)} MB/s (median of ${count}: ${runs.map((r) => r.mbps.toFixed(1)).join(', ')})` +
      `   echo p50 ${latency.p50.toFixed(3)} ms  p99 ${latency.p99.toFixed(3)} ms  mean ${latency.mean.toFixed(3)} ms\n`,
  );
  return { mbps, ...latency };
}

async function writeTestFile(path, bytes) {
  // Printable lines of 99 characters + newline, like a big log.
  const line = `${'0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'.repeat(2).slice(0, 99)}\n`;
  const block = line.repeat(Math.floor((1 << 20) / line.length));
  const stream = createWriteStream(path);
  let written = 0;
  while (written < bytes) {
    const chunk = block.slice(0, Math.min(block.length, bytes - written));
    if (!stream.write(chunk)) await once(stream, 'drain');
    written += chunk.length;
  }
  stream.end();
  await once(stream, 'finish');
}

const directory = realpathSync(mkdtempSync(join(tmpdir(), 'keel-bench-pty-')));
const file = join(directory, 'output.txt');
const bytes = MB * 1e6;
await writeTestFile(file, bytes);

process.stdout.write(
  `# PTY WebSocket bench, ${new Date().toISOString()}\n# ${machineLine()}\n` +
    `# command: ${['node', 'bench/pty-terminal.mjs', ...argv].join(' ')}  (KEEL_DIST=${process.env.KEEL_DIST ?? 'dist'})\n` +
    `# throughput: cat of a ${MB} MB file through the PTY and WebSocket; echo: ${KEYS} single keystrokes to raw-mode cat\n`,
);

const results = {};
const keel = await startKeel({ allowedDirectories: tmpdir() });
try {
  results.keel = await measure('keel', keel, directory, file, bytes, RUNS);
} finally {
  await keel.stop();
}
if (WITH_REFERENCE) {
  const reference = await startReference({ cwd: directory });
  try {
    results.reference = await measure(`opencode ${reference.version}`, reference, directory, file, bytes, REFERENCE_RUNS);
  } finally {
    await reference.stop();
  }
  const r = results.reference;
  const k = results.keel;
  process.stdout.write(
    `ratio keel/reference    throughput ${(k.mbps / r.mbps).toFixed(2)}x   echo p50 ${(k.p50 / r.p50).toFixed(2)}x  p99 ${(k.p99 / r.p99).toFixed(2)}x (lower is better for echo)\n`,
  );
}
rmSync(directory, { recursive: true, force: true });
