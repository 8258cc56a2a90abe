// node analyze.mjs file.cpuprofile [fromSecondsAfterStart] [toSeconds] — self time by function, ms
import { readFileSync } from 'node:fs';
const prof = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const from = prof.startTime + Number(process.argv[3] ?? 0) * 1e6, to = prof.startTime + Number(process.argv[4] ?? 1e9) * 1e6;
const nodes = new Map(prof.nodes.map((nd) => [nd.id, nd]));
const parent = new Map(); for (const nd of prof.nodes) for (const c of nd.children ?? []) parent.set(c, nd.id);
const name = (nd) => `${nd.callFrame.functionName || '(anon)'} ${nd.callFrame.url.split('/').slice(-2).join('/')}:${nd.callFrame.lineNumber}`;
let t = prof.startTime; const self = new Map(), incl = new Map(); let total = 0;
for (let i = 0; i < prof.samples.length; i++) {
  t += prof.timeDeltas[i]; if (t < from || t > to) continue;
  const dt = (prof.timeDeltas[i + 1] ?? 0) / 1000; total += dt;
  let id = prof.samples[i]; const k = name(nodes.get(id)); self.set(k, (self.get(k) ?? 0) + dt);
  const seen = new Set(); while (id !== undefined) { const k2 = name(nodes.get(id)); if (!seen.has(k2)) { seen.add(k2); incl.set(k2, (incl.get(k2) ?? 0) + dt); } id = parent.get(id); }
}
console.log(`total ${total.toFixed(0)} ms, idle ${(self.get('(idle) :-1') ?? 0).toFixed(0)} ms`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) console.log(v.toFixed(0).padStart(7), k);
if (process.env.INCL) for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).filter(([k]) => new RegExp(process.env.INCL).test(k)).slice(0, 40)) console.log('incl', v.toFixed(0).padStart(7), k);
