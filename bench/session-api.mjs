// Session API figures for Keel (and, with --reference, the reference opencode server side by side):
//   start-to-healthy time, idle RSS, req/s and p99 of GET /global/health, GET /session with 100 stored
//   sessions, POST /session at 10 connections, and session.created delivery latency on /event
//   (from the POST response to the frame).
//
// Usage (after `scripts/build-to.sh .dist-<you>`; the reference needs `npm install --prefix bench/reference`):
//   KEEL_DIST=$PWD/.dist-<you> node bench/session-api.mjs [--seconds 5] [--connections 10] [--reference]
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, numberOption, percentile, rssMb } from './lib/figures.mjs';
import { startKeel, waitHealthy } from './lib/keel-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const option = (name, fallback) => numberOption(argv, name, fallback);
const SECONDS = option('seconds', 5);
const CONNECTIONS = option('connections', 10);
const WITH_REFERENCE = argv.includes('--reference');
const SESSIONS = 100;
const EVENT_SAMPLES = option('events', 300);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One HTTP request on a keep-alive agent; resolves {status, body}. */
function request(agent, url, method = 'GET', body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      { method, agent, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {} },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The reference server through bench/reference/start-reference.mjs (another helper's launcher). */
async function startReferenceServer() {
  const launcher = join(here, 'reference', 'start-reference.mjs');
  if (!existsSync(launcher)) throw new Error('bench/reference/start-reference.mjs is missing');
  const { startReference } = await import(launcher);
  const started = performance.now();
  const ref = await startReference();
  await waitHealthy(ref.url);
  return { name: `reference ${ref.version}`, url: ref.url, pid: ref.pid, healthyMs: performance.now() - started, stop: ref.stop };
}

/** `connections` closed loops of `send` for `seconds`; req/s, p50 and p99 in ms. */
async function load(send, connections = CONNECTIONS, seconds = SECONDS) {
  const latencies = [];
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        const { status } = await send();
        if (status !== 200) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

/** Latency from the POST /session response to its session.created frame on /event. */
async function eventLatency(url, dirQuery, agent) {
  const waiting = new Map();
  const early = new Map();
  let buffer = '';
  const stream = await new Promise((resolve, reject) => {
    const req = http.get(`${url}/event?${dirQuery}`, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const now = performance.now();
        buffer += chunk;
        let i;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const line = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          if (!line.startsWith('data: ')) continue;
          const frame = JSON.parse(line.slice(6));
          if (frame.type === 'server.connected') resolve(req);
          if (frame.type !== 'session.created') continue;
          const id = frame.properties.info.id;
          const done = waiting.get(id);
          if (done) done(now);
          else early.set(id, now);
        }
      });
    });
    req.on('error', reject);
  });
  const samples = [];
  for (let n = 0; n < EVENT_SAMPLES; n++) {
    const { body } = await request(agent, `${url}/session?${dirQuery}`, 'POST', {});
    const answered = performance.now();
    const id = JSON.parse(body).id;
    const arrived = early.get(id) ?? (await new Promise((r) => waiting.set(id, r)));
    // A frame written before the response counts as 0: the client had it when the response came.
    samples.push(Math.max(0, arrived - answered));
  }
  stream.destroy();
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples[samples.length - 1] };
}

async function measure(target) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'keel-bench-dir-')));
  const dirQuery = `directory=${encodeURIComponent(dir)}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  try {
    await request(agent, `${target.url}/session?${dirQuery}`); // instance warm-up
    await sleep(1000);
    const idleRss = rssMb(target.pid);
    const health = await load(() => request(agent, `${target.url}/global/health`));
    for (let i = 0; i < SESSIONS; i++) await request(agent, `${target.url}/session?${dirQuery}`, 'POST', { title: `bench ${i}` });
    const listed = JSON.parse((await request(agent, `${target.url}/session?${dirQuery}`)).body).length;
    const list = await load(() => request(agent, `${target.url}/session?${dirQuery}`));
    const create = await load(() => request(agent, `${target.url}/session?${dirQuery}`, 'POST', {}));
    const event = await eventLatency(target.url, dirQuery, agent);
    return { healthyMs: target.healthyMs, idleRss, health, listed, list, create, event, rssAfter: rssMb(target.pid) };
  } finally {
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

function report(name, r) {
  console.log(`\n## ${name}`);
  console.log(`start to healthy           ${fmt(r.healthyMs, 0)} ms          (target < 1000 ms)`);
  console.log(`idle RSS                   ${fmt(r.idleRss)} MB         (target < 150 MB; after load ${fmt(r.rssAfter)} MB)`);
  console.log(`GET /global/health         ${fmt(r.health.rps, 0)} req/s   p50 ${fmt(r.health.p50, 2)} ms  p99 ${fmt(r.health.p99, 2)} ms  errors ${r.health.errors}`);
  console.log(`GET /session (${r.listed} stored)  ${fmt(r.list.rps, 0)} req/s   p50 ${fmt(r.list.p50, 2)} ms  p99 ${fmt(r.list.p99, 2)} ms  errors ${r.list.errors}  (target >= 400 req/s)`);
  console.log(`POST /session (${CONNECTIONS} conns)   ${fmt(r.create.rps, 0)} req/s   p50 ${fmt(r.create.p50, 2)} ms  p99 ${fmt(r.create.p99, 2)} ms  errors ${r.create.errors}  (target >= 850 req/s)`);
  console.log(`session.created on /event  p50 ${fmt(r.event.p50, 2)} ms  p99 ${fmt(r.event.p99, 2)} ms  max ${fmt(r.event.max, 2)} ms  (${EVENT_SAMPLES} samples; target p99 < 5 ms)`);
}

console.log(`# session API bench — ${new Date().toISOString()}  ${machineLine()}`);
console.log(`# command: ${process.env.KEEL_DIST ? `KEEL_DIST=${process.env.KEEL_DIST} ` : ''}node bench/session-api.mjs ${argv.join(' ')}`);

const keel = { name: 'keel', ...(await startKeel({ allowedDirectories: tmpdir() })) };
let keelFigures;
try {
  keelFigures = await measure(keel);
} finally {
  await keel.stop();
}
report('keel', keelFigures);

if (WITH_REFERENCE) {
  const ref = await startReferenceServer();
  let refFigures;
  try {
    refFigures = await measure(ref);
  } finally {
    await ref.stop();
  }
  report(ref.name, refFigures);
  console.log('\n## keel / reference');
  console.log(`start to healthy ${fmt(keelFigures.healthyMs / refFigures.healthyMs, 2)}x  idle RSS ${fmt(keelFigures.idleRss / refFigures.idleRss, 2)}x`);
  console.log(`GET /global/health req/s ${fmt(keelFigures.health.rps / refFigures.health.rps, 2)}x  GET /session req/s ${fmt(keelFigures.list.rps / refFigures.list.rps, 2)}x  POST /session req/s ${fmt(keelFigures.create.rps / refFigures.create.rps, 2)}x`);
  console.log(`event p99 ${fmt(keelFigures.event.p99 / refFigures.event.p99, 2)}x (lower is better)`);
}
