// Session API figures for Keel (and, with --reference, the reference opencode server side by side):
//   start-to-healthy time, idle RSS, req/s, p99 and CPU per request of GET /global/health, GET /session
//   with 100 stored sessions, POST /session at 10 connections (each in turns with the health path, so
//   their share of it holds on a loaded machine), and session.created delivery latency on /event
//   (from the POST response to the frame).
//
// Usage (after `scripts/build-to.sh .dist-<you>`; the reference needs `npm install --prefix bench/reference`):
//   KEEL_DIST=$PWD/.dist-<you> node bench/session-api.mjs [--seconds 5] [--turns 5] [--warmup 1] [--connections 10] [--reference]
// With DATABASE_URL=postgres://… Keel runs on a scratch PostgreSQL database on that server (SQLite otherwise).
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, machineLine, numberOption, percentile, rssMb } from './lib/figures.mjs';
import { freshDatabase, startKeel, waitHealthy } from './lib/keel-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const option = (name, fallback) => numberOption(argv, name, fallback);
const SECONDS = option('seconds', 5);
const CONNECTIONS = option('connections', 10);
const WITH_REFERENCE = argv.includes('--reference');
const SESSIONS = 100;
const EVENT_SAMPLES = option('events', 300);
const TURNS = option('turns', 5);
const WARMUP_SECONDS = option('warmup', 1);

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

/** CPU ms used so far by the server process and (PostgreSQL) by each backend connected to its database. */
async function cpuOf(target) {
  const pids = target.backends ? await target.backends() : [];
  return { server: cpuMs(target.pid), backends: new Map(pids.map((pid) => [pid, cpuMs(pid) || 0])) };
}

/** The database's CPU between two readings: backends seen at both, and the whole of those opened since (those closed meanwhile are missed). */
function databaseCpu(before, after) {
  let sum = 0;
  for (const [pid, ms] of after.backends) sum += ms - (before.backends.get(pid) ?? 0);
  return sum;
}

/** `connections` closed loops of `send` for `seconds`: the latencies, the time taken and the CPU used. */
async function run(target, send, seconds, connections = CONNECTIONS) {
  const cpuBefore = await cpuOf(target);
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
  const cpuAfter = await cpuOf(target);
  return { latencies, errors, elapsed, cpu: cpuAfter.server - cpuBefore.server, dbCpu: databaseCpu(cpuBefore, cpuAfter) };
}

/**
 * Each of `sends` for SECONDS in all, taken in TURNS turns one after another (a change in the machine's
 * load then falls on each alike, so their ratios hold on a shared machine): req/s, p50 and p99 in ms, and
 * the CPU each request cost the server and its database (req/s follows the share of the cores the server
 * gets; CPU per request much less so). Each send first runs WARMUP_SECONDS unmeasured, so a path's first
 * turn is not its JIT compilation (the health path is already warm from the list's turns, a create's
 * path was not).
 */
async function loadInTurns(target, sends) {
  for (const send of sends) await run(target, send, WARMUP_SECONDS);
  const runs = sends.map(() => []);
  for (let turn = 0; turn < TURNS; turn++)
    for (let i = 0; i < sends.length; i++) runs[i].push(await run(target, sends[i], SECONDS / TURNS));
  return runs.map((parts) => {
    const latencies = parts.flatMap((p) => p.latencies).sort((a, b) => a - b);
    const sum = (key) => parts.reduce((total, p) => total + p[key], 0);
    return {
      rps: latencies.length / sum('elapsed'),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      errors: sum('errors'),
      cpuPerRequest: sum('cpu') / latencies.length,
      dbCpuPerRequest: sum('dbCpu') / latencies.length,
    };
  });
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
    const health = () => request(agent, `${target.url}/global/health`);
    for (let i = 0; i < SESSIONS; i++) await request(agent, `${target.url}/session?${dirQuery}`, 'POST', { title: `bench ${i}` });
    const listed = JSON.parse((await request(agent, `${target.url}/session?${dirQuery}`)).body).length;
    // Health beside each (the share of it is a target); the list before any create adds to it.
    const [healthBesideList, list] = await loadInTurns(target, [health, () => request(agent, `${target.url}/session?${dirQuery}`)]);
    const [healthBesideCreate, create] = await loadInTurns(target, [health, () => request(agent, `${target.url}/session?${dirQuery}`, 'POST', {})]);
    const event = await eventLatency(target.url, dirQuery, agent);
    return { healthyMs: target.healthyMs, idleRss, healthBesideList, healthBesideCreate, listed, list, create, event, rssAfter: rssMb(target.pid) };
  } finally {
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

function report(name, r) {
  const line = (f) => `${fmt(f.rps, 0)} req/s   p50 ${fmt(f.p50, 2)} ms  p99 ${fmt(f.p99, 2)} ms  errors ${f.errors}`;
  const share = (f, health) => `${fmt((100 * f.rps) / health.rps, 0)} %`;
  const cpu = (f) => `${fmt(f.cpuPerRequest, 3)} ms${r.onPostgres ? ` + PostgreSQL ${fmt(f.dbCpuPerRequest, 3)} ms` : ''}`;
  console.log(`\n## ${name}`);
  // One start on a new database, its migrations included; the target is a restart's (bench/start-rss.mjs --restarts).
  console.log(`start to healthy           ${fmt(r.healthyMs, 0)} ms          (a new database; target < 600 ms on restarts: bench/start-rss.mjs)`);
  console.log(`idle RSS                   ${fmt(r.idleRss)} MB         (target < 120 MB; after load ${fmt(r.rssAfter)} MB)`);
  console.log(`GET /global/health         ${line(r.healthBesideList)}  (in turns with the list)`);
  console.log(`GET /session (${r.listed} stored)  ${line(r.list)}  (target >= 400 req/s)`);
  console.log(`GET /global/health         ${line(r.healthBesideCreate)}  (in turns with the create)`);
  console.log(`POST /session (${CONNECTIONS} conns)   ${line(r.create)}  (target >= 850 req/s)`);
  const shareTarget = r.onPostgres === undefined ? '' : `  (target >= ${r.onPostgres ? 60 : 70} % each)`;
  console.log(`share of health req/s      list ${share(r.list, r.healthBesideList)}, create ${share(r.create, r.healthBesideCreate)}${shareTarget}`);
  console.log(`CPU per request            health ${cpu(r.healthBesideList)}, list ${cpu(r.list)}, create ${cpu(r.create)}`);
  console.log(`session.created on /event  p50 ${fmt(r.event.p50, 2)} ms  p99 ${fmt(r.event.p99, 2)} ms  max ${fmt(r.event.max, 2)} ms  (${EVENT_SAMPLES} samples; target p99 < 5 ms)`);
}

console.log(`# session API bench — ${new Date().toISOString()}  ${machineLine()}`);
console.log(`# command: ${process.env.KEEL_DIST ? `KEEL_DIST=${process.env.KEEL_DIST} ` : ''}node bench/session-api.mjs ${argv.join(' ')}`);

const database = await freshDatabase();
console.log(`# keel on ${database.url ? 'PostgreSQL' : 'SQLite'}`);
const keel = { name: 'keel', backends: database.backends, ...(await startKeel({ allowedDirectories: tmpdir(), databaseUrl: database.url })) };
let keelFigures;
try {
  keelFigures = { ...(await measure(keel)), onPostgres: Boolean(database.url) };
} finally {
  await keel.stop();
  await database.drop();
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
  console.log(`GET /global/health req/s ${fmt(keelFigures.healthBesideList.rps / refFigures.healthBesideList.rps, 2)}x  GET /session req/s ${fmt(keelFigures.list.rps / refFigures.list.rps, 2)}x  POST /session req/s ${fmt(keelFigures.create.rps / refFigures.create.rps, 2)}x  (target >= 5x list and create)`);
  // CPU per request (Keel's with its PostgreSQL backends'; the reference's database is in its process) holds on a loaded machine, where req/s follows each server's share of the cores during its own run.
  const cpuRatio = (phase) => refFigures[phase].cpuPerRequest / (keelFigures[phase].cpuPerRequest + (keelFigures.onPostgres ? keelFigures[phase].dbCpuPerRequest : 0));
  console.log(`CPU per request (reference / keel): GET /global/health ${fmt(cpuRatio('healthBesideList'), 2)}x  GET /session ${fmt(cpuRatio('list'), 2)}x  POST /session ${fmt(cpuRatio('create'), 2)}x`);
  console.log(`event p99 ${fmt(keelFigures.event.p99 / refFigures.event.p99, 2)}x (lower is better)`);
}
