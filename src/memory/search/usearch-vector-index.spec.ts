import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '../../events/event-bus.service';
import type { IngestionStore, Query } from '../store';
import { UsearchVectorIndex } from './usearch-vector-index';

// Keel's usearch index over a real SQLite table: removed vectors leave tombstones in the graph until
// they are many, then a compaction rebuilds it from the table without a restart; a save and a new
// start load the compacted index.
describe('UsearchVectorIndex compaction', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE memory_chunk (id INTEGER PRIMARY KEY, document_id TEXT, embedding TEXT)');
  const query: Query = <T>(sql: string, params: unknown[] = []) => {
    const statement = db.prepare(sql);
    return Promise.resolve((statement.reader ? statement.all(...params) : (statement.run(...params), [])) as T[]);
  };
  const store = { query, afterCommit: (_q: Query, hook: () => void) => hook() } as unknown as IngestionStore;
  const dir = mkdtempSync(join(tmpdir(), 'keel-usearch-spec-'));
  const persistence = { dir, model: 'm', database: 'sqlite', intervalMs: 0 };
  const documents = 200;
  const perDocument = 8;

  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const vector = (doc: number, i: number) => Array.from({ length: 16 }, (_, d) => (Math.sin(doc * 12.9898 + i * 78.233 + d * 37.719) * 43758.5453) % 1);

  it('drops tombstones once they are a quarter of the vectors, answering throughout, and saves the compacted graph', async () => {
    const insert = db.prepare('INSERT INTO memory_chunk (document_id, embedding) VALUES (?, ?)');
    for (let doc = 0; doc < documents; doc++) for (let i = 0; i < perDocument; i++) insert.run(`d${doc}`, JSON.stringify(vector(doc, i)));
    const index = new UsearchVectorIndex(store, new EventBus(), true, persistence);
    await index.ready();
    await index.loaded();
    expect(index.describe()).toMatchObject({ source: 'rebuilt', size: documents * perDocument, tombstones: 0 });

    // 130 documents deleted: 1,040 tombstones, past the threshold (1,000 and a quarter of the live vectors).
    for (let doc = 0; doc < 130; doc++) {
      await index.removeDocument(query, `d${doc}`);
      db.prepare('DELETE FROM memory_chunk WHERE document_id = ?').run(`d${doc}`);
      const [hit] = await index.nearest(vector(150, 0), undefined, 1);
      expect(Number(db.prepare('SELECT count(*) AS n FROM memory_chunk WHERE id = ?').pluck().get(hit.id))).toBe(1);
    }
    const deadline = Date.now() + 10_000;
    while (index.describe().compactions === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(index.describe()).toMatchObject({ compactions: 1, size: 70 * perDocument });
    // Left: only the documents removed while the fresh graph was being built (their vectors read again after the swap).
    expect(index.describe().tombstones).toBeLessThan(10 * perDocument);
    await index.onApplicationShutdown();

    const again = new UsearchVectorIndex(store, new EventBus(), true, persistence);
    await again.ready();
    await again.loaded();
    // `removed`: vectors still marked removed when it was saved (documents removed during the compaction), dropped at this start.
    expect(again.describe()).toMatchObject({ source: 'saved', added: 0, size: 70 * perDocument });
    const [hit] = await again.nearest(vector(150, 0), undefined, 1);
    expect(db.prepare('SELECT document_id FROM memory_chunk WHERE id = ?').pluck().get(hit.id)).toBe('d150');
    await again.onApplicationShutdown();
  });

  it('skips removed vectors at once, and a save made before they are out of the graph drops them at the next start', async () => {
    db.exec('DELETE FROM memory_chunk');
    const insert = db.prepare('INSERT INTO memory_chunk (document_id, embedding) VALUES (?, ?)');
    for (let doc = 0; doc < 20; doc++) for (let i = 0; i < perDocument; i++) insert.run(`r${doc}`, JSON.stringify(vector(doc, i)));
    const removedIds = db.prepare("SELECT id FROM memory_chunk WHERE document_id = 'r5'").pluck().all() as number[];
    const dir2 = mkdtempSync(join(tmpdir(), 'keel-usearch-spec-'));
    const saved = { ...persistence, dir: dir2 };
    const index = new UsearchVectorIndex(store, new EventBus(), true, saved);
    await index.ready();
    await index.loaded();
    await index.save();

    await index.removeDocument(query, 'r5');
    db.prepare("DELETE FROM memory_chunk WHERE document_id = 'r5'").run();
    // Saved in the same turn: most of r5's vectors are still in the graph, only marked removed.
    const saving = index.save();
    expect(index.describe().size).toBe(19 * perDocument);
    for (let i = 0; i < perDocument; i++) {
      const hits = await index.nearest(vector(5, i), undefined, 5);
      expect(hits.map((h) => h.id).filter((id) => removedIds.includes(id))).toEqual([]);
    }
    await saving;
    await index.onApplicationShutdown();

    const again = new UsearchVectorIndex(store, new EventBus(), true, saved);
    await again.ready();
    await again.loaded();
    expect(again.describe()).toMatchObject({ source: 'saved', added: 0, size: 19 * perDocument });
    expect(again.describe().removed).toBeGreaterThan(0);
    const hits = await again.nearest(vector(5, 0), undefined, 10);
    expect(hits.map((h) => h.id).filter((id) => removedIds.includes(id))).toEqual([]);
    await again.onApplicationShutdown();
    rmSync(dir2, { recursive: true, force: true });
  });
});
