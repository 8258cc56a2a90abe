// node bench/.tmp/profcreate.mjs [path] [seconds]  — profiles Keel under POST /session (or GET path) at 10 conns
import http from 'node:http';
import { mkdtempSync, realpathSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, startKeel } from '../lib/keel-server.mjs';
const mode = process.argv[2] ?? 'create';
const seconds = Number(process.argv[3] ?? 8);
const profDir = mkdtempSync(join(tmpdir(), 'prof-'));
process.env.BENCH_NODE_ARGS = (process.env.EXTRA_NODE_ARGS ?? "") + ` --cpu-prof --cpu-prof-dir=${profDir} --cpu-prof-interval=200`;
const db = await freshDatabase();
const keel = await startKeel({ databaseUrl: db.url, allowedDirectories: tmpdir() });
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'pd-')));
const q = `directory=${encodeURIComponent(dir)}`;
const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
const req = (method, path, body) => new Promise((res, rej) => {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const r = http.request(keel.url + path, { method, agent, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {} }, (s) => { s.resume(); s.on('end', () => res(s.statusCode)); });
  r.on('error', rej); r.end(payload);
});
const send = mode === 'health' ? () => req('GET', '/global/health') : mode === 'list' ? () => req('GET', `/session?${q}`) : () => req('POST', `/session?${q}`, {});
for (let i = 0; i < 100; i++) await req('POST', `/session?${q}`, { title: 'x' + i });
let bad = 0; async function load(s) { let n = 0; const until = performance.now() + s * 1000; await Promise.all(Array.from({ length: 10 }, async () => { while (performance.now() < until) { if ((await send()) !== 200) bad++; n++; } })); return n; }
await load(3);
const { execSync } = await import("node:child_process"); const dbn = new URL(db.url || "postgres://x/none").pathname.slice(1); const xc = () => Number(execSync(`psql -h 127.0.0.1 -U postgres -d test -Atc "select xact_commit from pg_stat_database where datname='${dbn}'"`).toString()); const x0 = db.url ? xc() : 0; const c0 = process.cpuUsage(); const k0 = (await import("../lib/figures.mjs")).cpuMs(keel.pid); const n = await load(seconds); const cu = process.cpuUsage(c0); if (db.url) console.log(`commits per request ${((xc() - x0) / n).toFixed(3)}`); const k1 = (await import("../lib/figures.mjs")).cpuMs(keel.pid); console.log(`client CPU ${((cu.user + cu.system) / n).toFixed(1)} µs/req, keel CPU ${((k1 - k0) * 1000 / n).toFixed(1)} µs/req`);
console.log(`${mode}: ${(n / seconds).toFixed(0)} req/s, non-200 ${bad}`);
await keel.stop(); await db.drop();
const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
const prof = JSON.parse(readFileSync(join(profDir, file), 'utf8'));
rmSync(profDir, { recursive: true });
const nodes = new Map(prof.nodes.map((nd) => [nd.id, nd]));
const parent = new Map(); for (const nd of prof.nodes) for (const c of nd.children ?? []) parent.set(c, nd.id);
let t = prof.startTime; const times = prof.timeDeltas.map((d) => (t += d));
const end = prof.endTime, from = end - (seconds + 0.2) * 1e6, to = end - 0.5e6;
const self = new Map(), incl = new Map(); let total = 0;
const name = (nd) => `${nd.callFrame.functionName || '(anon)'} ${nd.callFrame.url.split('/').slice(-2).join('/')}:${nd.callFrame.lineNumber}`;
for (let i = 0; i < prof.samples.length; i++) {
  if (times[i] < from || times[i] > to) continue;
  const dt = prof.timeDeltas[i + 1] ?? 200; total += dt;
  let id = prof.samples[i]; const nd = nodes.get(id); const k = name(nd); self.set(k, (self.get(k) ?? 0) + dt);
  const seen = new Set(); while (id !== undefined) { const k2 = name(nodes.get(id)); if (!seen.has(k2)) { seen.add(k2); incl.set(k2, (incl.get(k2) ?? 0) + dt); } id = parent.get(id); }
}
const reqs = n * ((to - from) / 1e6) / seconds;
const us = (v) => (v / reqs).toFixed(1);
console.log(`window ${(to - from) / 1e6}s, ${reqs.toFixed(0)} reqs, busy ${us(total - (self.get('(idle) :-1') ?? 0))} µs/req`);
console.log('--- self µs/req'); for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 45))) console.log(us(v).padStart(7), k);
if (process.env.INCL) { console.log('--- inclusive'); for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).filter(([k]) => new RegExp(process.env.INCL).test(k)).slice(0, 60)) console.log(us(v).padStart(7), k); }
if (process.env.STACKS) {
  const stacks = new Map();
  for (let i = 0; i < prof.samples.length; i++) {
    if (times[i] < from || times[i] > to) continue;
    let id = prof.samples[i]; if (!new RegExp(process.env.STACKS).test(name(nodes.get(id)))) continue;
    const chain = []; while (id !== undefined && chain.length < 14) { chain.push(name(nodes.get(id))); id = parent.get(id); }
    const k = chain.join(' < '); stacks.set(k, (stacks.get(k) ?? 0) + (prof.timeDeltas[i + 1] ?? 200));
  }
  for (const [k, v] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(us(v), k, '\n');
}
if (process.env.LINES) {
  const re = new RegExp(process.env.LINES); const lines = new Map();
  for (const nd of prof.nodes) { if (!re.test(name(nd))) continue; for (const pt of nd.positionTicks ?? []) { const k = `${name(nd)} L${pt.line}`; lines.set(k, (lines.get(k) ?? 0) + pt.ticks); } }
  const interval = (prof.endTime - prof.startTime) / prof.samples.length;
  for (const [k, v] of [...lines].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((v * interval / (n * seconds / seconds)).toFixed(2), k);
}
