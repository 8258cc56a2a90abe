const Database = require('/work/main/node_modules/better-sqlite3');
const stats = new Map();
const origPrepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql) {
  const st = origPrepare.call(this, sql);
  const key = sql.replace(/\s+/g, ' ').slice(0, 140);
  for (const m of ['run', 'all', 'get', 'iterate']) {
    const orig = st[m];
    if (typeof orig !== 'function') continue;
    st[m] = function (...a) { const t = performance.now(); try { return orig.apply(this, a); } finally { const s = stats.get(key) ?? { n: 0, ms: 0 }; s.n++; s.ms += performance.now() - t; stats.set(key, s); } };
  }
  return st;
};
const origExec = Database.prototype.exec;
Database.prototype.exec = function (sql) { const t = performance.now(); try { return origExec.call(this, sql); } finally { const key = 'EXEC ' + sql.replace(/\s+/g, ' ').slice(0, 100); const s = stats.get(key) ?? { n: 0, ms: 0 }; s.n++; s.ms += performance.now() - t; stats.set(key, s); } };
process.on('SIGTERM', () => { const rows = [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25); process.stderr.write(rows.map(([k, s]) => `${s.ms.toFixed(0).padStart(7)} ms ${String(s.n).padStart(7)}× ${k}`).join('\n') + '\n'); });
