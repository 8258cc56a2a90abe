#!/usr/bin/env node
// Hostile uploads against the built server: each bomb of test/support/hostile-files.ts (generated now,
// nothing committed) is uploaded alone to POST /v3/documents/file while the server's resident memory
// (/proc VmRSS, worker threads included since they share the process) and that of the extraction
// processes it starts are sampled every 20 ms, and GET /global/health is asked in a loop with a 1 s
// client timeout. Prints, per bomb: the outcome, peak RSS growth of the server and of the extraction
// process, health latency p50/p99/max and failures. Targets: server RSS growth < 300 MB, health p99 < 1 s.
// Then the cost of the extraction process: a small text document on a cold server (process start and
// load included) and warm, and the same for a small PDF (pdf.js loads on the first one).
//   npm run build && node bench/hostile-files.mjs                (SQLite in a temp data dir)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/hostile-files.mjs
// Knobs: BENCH_ONLY (comma-separated bomb names), KEEL_DIST (another build).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, percentile, rssMb } from './lib/figures.mjs';
import { freshDatabase, keelEntry, startKeel } from './lib/keel-server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const KEY = 'bench-key';

/** The tests' generators and fixtures, compiled from TypeScript with esbuild (a dev dependency): the bench uploads the same bombs. */
function loadGenerators() {
  const dir = mkdtempSync(join(tmpdir(), 'keel-bench-bombs-'));
  const file = join(dir, 'hostile-files.cjs');
  require('esbuild').buildSync({
    stdin: { contents: "export * from './test/support/hostile-files'; export { makeDocx, makePdf } from './test/support/memory-fixtures';", resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: file,
    logLevel: 'warning',
  });
  try {
    return require(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const bombs = loadGenerators();
const { makeDocx, makePdf } = bombs;

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const CASES = [
  ['docx', 'DOCX, 300 MB of XML', () => bombs.docxBomb(), 'bomb.docx', DOCX],
  ['docx-lie', 'DOCX, headers say 1,000 bytes', () => bombs.docxBomb(300, { lie: true }), 'liar.docx', DOCX],
  ['xlsx', 'XLSX, 300 MB of XML', () => bombs.xlsxBomb(), 'bomb.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['zip-of-zips', 'zip of 16 zips of 15 MB', () => bombs.zipOfZips(), 'parts.zip', 'application/zip'],
  ['nested-zips', 'zips nested 5 deep', () => bombs.nestedZips(5), 'nested.zip', 'application/zip'],
  ['pdf-flate', 'PDF, 512 MB Flate stream', () => bombs.pdfFlateBomb(), 'spaces.pdf', 'application/pdf'],
  ['pdf-forms', 'PDF, forms drawn 10^6 times', () => bombs.pdfNestedForms(), 'forms.pdf', 'application/pdf'],
  ['html-deep', 'HTML nested 100,000 deep', () => bombs.deepHtml(), 'deep.html', 'text/html'],
  ['html-huge', 'HTML, 10^6 paragraphs (4 MB)', () => bombs.hugeHtml(), 'huge.html', 'text/html'],
  ['json', 'JSON, 0.5 MB → 10.75 M chars', () => bombs.jsonAmplifier(), 'zeros.json', 'application/json'],
].filter(([name]) => !process.env.BENCH_ONLY || process.env.BENCH_ONLY.split(',').includes(name));

async function upload(url, data, name, type) {
  const form = new FormData();
  form.append('file', new Blob([data], { type }), name);
  const response = await fetch(`${url}/v3/documents/file`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: form });
  if (!response.ok) throw new Error(`upload ${name}: ${response.status} ${await response.text()}`);
  return (await response.json()).id;
}

async function finished(url, id) {
  for (;;) {
    const doc = await (await fetch(`${url}/v3/documents/${id}`, { headers: { authorization: `Bearer ${KEY}` } })).json();
    if (doc.status === 'done' || doc.status === 'failed') return doc;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resident MB of the extraction processes `parent` started (its child processes), from /proc. */
function childrenRssMb(parent) {
  let total = 0;
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) total += rssMb(entry) || 0;
    } catch {
      // gone while the list was read
    }
  }
  return total;
}

function hwmMb(pid) {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

/** Health asked back to back with a 1 s client timeout until `work` settles: latencies and failures. */
async function healthDuring(url, work) {
  const latencies = [];
  let failures = 0;
  let settled = false;
  const done = work.finally(() => (settled = true));
  while (!settled) {
    const t = performance.now();
    try {
      const response = await fetch(`${url}/global/health`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status !== 200) failures++;
    } catch {
      failures++;
    }
    latencies.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
  return { result: await done, latencies: latencies.sort((a, b) => a - b), failures };
}

const database = await freshDatabase();
const keel = await startKeel({ databaseUrl: database.url, env: { KEEL_API_KEYS: KEY } });
const { url, pid } = keel;
const rows = [];
try {
  const cold = async (data, name, type) => {
    const t = performance.now();
    const doc = await finished(url, await upload(url, data, name, type));
    return { ms: performance.now() - t, status: doc.status };
  };
  // Cost of the extraction process, before any bomb: first document (process start), then warm.
  const startup = {
    textCold: await cold(Buffer.from('A short note about otters.'), 'a.txt', 'text/plain'),
    textWarm: await cold(Buffer.from('Another note about otters.'), 'b.txt', 'text/plain'),
    pdfFirst: await cold(makePdf('Narwhals live in Arctic waters.'), 'c.pdf', 'application/pdf'),
    pdfWarm: await cold(makePdf('Belugas sing.'), 'd.pdf', 'application/pdf'),
    docxFirst: await cold(makeDocx('Orcas hunt in pods.'), 'e.docx', DOCX),
  };
  for (const [name, label, make, file, type] of CASES) {
    const data = make();
    const base = rssMb(pid);
    let serverPeak = base;
    let childPeak = 0;
    const sampler = setInterval(() => {
      serverPeak = Math.max(serverPeak, rssMb(pid));
      childPeak = Math.max(childPeak, childrenRssMb(pid));
    }, 20);
    const started = performance.now();
    const { result: doc, latencies, failures } = await healthDuring(url, upload(url, data, file, type).then((id) => finished(url, id)));
    clearInterval(sampler);
    rows.push({
      name,
      label,
      size: `${(data.length / 1024).toFixed(0)} KB`,
      outcome: doc.status === 'failed' ? doc.error : doc.status,
      seconds: ((performance.now() - started) / 1000).toFixed(1),
      server: serverPeak - base,
      child: childPeak,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1],
      checks: latencies.length,
      failures,
    });
    process.stderr.write(`${name}: ${doc.status} ${doc.error ?? ''}\n`);
  }
  console.log(`# keel hostile-files bench — ${new Date().toISOString()}`);
  console.log(`machine: ${machineLine()}, ${database.url ? 'PostgreSQL' : 'SQLite'}`);
  console.log(`command: ${database.url ? 'DATABASE_URL=… ' : ''}KEEL_DIST=${process.env.KEEL_DIST ?? 'dist'} node bench/hostile-files.mjs   (server: ${keelEntry})`);
  console.log('| bomb | file | outcome | time | server RSS growth, peak | extraction process RSS, peak | health p50 / p99 / max | health checks failed |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    console.log(
      `| ${r.label} | ${r.size} | ${r.outcome} | ${r.seconds} s | ${r.server.toFixed(0)} MB | ${r.child.toFixed(0)} MB | ${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} / ${r.max.toFixed(0)} ms | ${r.failures} of ${r.checks} |`,
    );
  }
  const worstServer = Math.max(...rows.map((r) => r.server));
  const worstP99 = Math.max(...rows.map((r) => r.p99));
  console.log(`worst server RSS growth ${worstServer.toFixed(0)} MB (target < 300 MB), worst health p99 ${worstP99.toFixed(1)} ms (target < 1000 ms); server VmHWM ${hwmMb(pid).toFixed(0)} MB over the whole run`);
  const s = startup;
  console.log(
    `extraction process cost (upload → done): text ${s.textCold.ms.toFixed(0)} ms on a cold server (process start included), ${s.textWarm.ms.toFixed(0)} ms warm; ` +
      `first PDF ${s.pdfFirst.ms.toFixed(0)} ms (pdf.js loads), next ${s.pdfWarm.ms.toFixed(0)} ms; first DOCX ${s.docxFirst.ms.toFixed(0)} ms`,
  );
} finally {
  await keel.stop();
  await database.drop();
}
