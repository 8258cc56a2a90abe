// The server's garbage collection under load, from V8's own trace (`--trace-gc-nvp`): per path, how many
// scavenges ran, what survived each (what a scavenge copies or promotes is what it costs), how many full
// (mark-compact) collections followed, and the pause time per 1,000 requests. A request's objects should
// die young: the health path of a bare Node server keeps under 1 KB across a scavenge.
//
// Usage (after `npm run build`, or `scripts/build-to.sh .dist-<you>` with KEEL_DIST):
//   node bench/server-gc.mjs [--seconds 5]
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/server-gc.mjs
import http from 'node:http';
import { machineLine, numberOption } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';

const SECONDS = numberOption(process.argv.slice(2), 'seconds', 5);

const database = await freshDatabase();
process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ''} --trace-gc-nvp`;
let trace = '';
const keel = await startKeel({ databaseUrl: database.url, onOutput: (chunk) => (trace += chunk) });

/** Sends requests on `connections` keep-alive sockets for SECONDS; resolves the count. */
async function load(method, path, connections) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const one = () =>
    new Promise((resolve, reject) => {
      const body = method === 'POST' ? '{}' : undefined;
      const req = http.request(`${keel.url}${path}`, { agent, method, headers: body ? { 'content-type': 'application/json', 'content-length': 2 } : {} }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(body);
    });
  let count = 0;
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        await one();
        count++;
      }
    }),
  );
  agent.destroy();
  return count;
}

/** The `--trace-gc-nvp` lines written since `from`, as objects of their numeric fields plus `gc`. */
function collections(from) {
  return trace
    .slice(from)
    .split('\n')
    .filter((line) => line.includes(' gc='))
    .map((line) => Object.fromEntries(line.split(' ').filter((pair) => pair.includes('=')).map((pair) => pair.split('=')).map(([k, v]) => [k, k === 'gc' ? v : Number(v)])));
}

const phases = [
  ['GET', '/global/health', 1],
  ['GET', '/global/health', 10],
  ['POST', '/session', 10],
];
console.log(`# server GC — ${database.url ? 'PostgreSQL' : 'SQLite'}, ${SECONDS} s a phase, KEEL_DIST=${process.env.KEEL_DIST ?? 'dist'}`);
console.log(machineLine());
console.log('path                 conns    req/s  scavenges  survived/scavenge  full GCs  GC pause per 1,000 requests');
try {
  for (const [method, path, connections] of phases) {
    await load(method, path, connections); // warm-up: the young generation settles to the load's size
    const from = trace.length;
    const requests = await load(method, path, connections);
    const gcs = collections(from);
    const scavenges = gcs.filter((gc) => gc.gc === 's');
    const survived = scavenges.reduce((sum, gc) => sum + (gc.new_space_survived ?? 0), 0) / Math.max(1, scavenges.length);
    const pause = gcs.reduce((sum, gc) => sum + (gc.pause ?? 0), 0);
    console.log(
      `${`${method} ${path}`.padEnd(20)} ${String(connections).padStart(5)} ${String(Math.round(requests / SECONDS)).padStart(8)} ${String(scavenges.length).padStart(10)} ${`${(survived / 1024).toFixed(0)} KB`.padStart(18)} ${String(gcs.length - scavenges.length).padStart(9)} ${`${((pause / requests) * 1000).toFixed(1)} ms`.padStart(28)}`,
    );
  }
} finally {
  await keel.stop();
  await database.drop();
}
