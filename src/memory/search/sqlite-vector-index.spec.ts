import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { EventBus } from '../../events/event-bus.service';
import type { IngestionStore, Query } from '../store';
import { SqliteVectorIndex } from './sqlite-vector-index';
import { UsearchVectorIndex } from './usearch-vector-index';

// The SQLite engine on its own file: exact vec0 scans while the table is small, the usearch index
// beside it beyond `exactLimit` (3 here), the same answers either way.
describe('SqliteVectorIndex', () => {
  const db = new Database(':memory:');
  sqliteVec.load(db);
  db.exec(`CREATE TABLE memory_document (id TEXT PRIMARY KEY, container_tags TEXT);
           CREATE TABLE memory_chunk (id INTEGER PRIMARY KEY, document_id TEXT, embedding TEXT)`);
  const query: Query = <T>(sql: string, params: unknown[] = []) => {
    const statement = db.prepare(sql);
    return Promise.resolve((statement.reader ? statement.all(...params) : (statement.run(...params), [])) as T[]);
  };
  const store = { query, afterCommit: (_q: Query, hook: () => void) => hook() } as unknown as IngestionStore;
  const approximate = new UsearchVectorIndex(store, new EventBus(), true);
  const index = new SqliteVectorIndex(query, approximate, 3);
  const vectors: Record<string, number[]> = { a: [1, 0, 0, 0], b: [0, 1, 0, 0], c: [0.9, 0.1, 0, 0], d: [0, 0, 1, 0], e: [0, 0.2, 0.9, 0] };

  const add = async (doc: string, tags: string[]) => {
    db.prepare('INSERT INTO memory_document (id, container_tags) VALUES (?, ?)').run(doc, JSON.stringify(tags));
    db.prepare('INSERT INTO memory_chunk (document_id, embedding) VALUES (?, ?)').run(doc, JSON.stringify(vectors[doc]));
    await index.indexDocument(query, doc);
  };
  const nearestDocs = async (vector: number[], tags?: string[]) => {
    const hits = await index.nearest(vector, tags, 2);
    return hits.map((h) => (db.prepare('SELECT document_id FROM memory_chunk WHERE id = ?').get(h.id) as { document_id: string }).document_id);
  };

  afterAll(async () => {
    await index.onApplicationShutdown();
    db.close();
  });

  it('answers exactly from vec0 while small, then from usearch, with the same neighbours and tag filter', async () => {
    await add('a', ['x']);
    await add('b', ['y']);
    await add('c', ['y']);
    const search = jest.spyOn(approximate, 'search');
    expect(await nearestDocs([1, 0, 0, 0])).toEqual(['a', 'c']);
    expect(search).not.toHaveBeenCalled();

    await add('d', ['x']);
    await add('e', ['x']);
    expect(await index.size()).toBe(5);
    // Past the exact limit the first search starts building the usearch index and answers exactly meanwhile.
    expect(await nearestDocs([1, 0, 0, 0])).toEqual(['a', 'c']);
    await approximate.loaded();
    expect(await nearestDocs([1, 0, 0, 0])).toEqual(['a', 'c']);
    expect(search).toHaveBeenCalled();
    expect(await nearestDocs([0, 0.1, 1, 0], ['x'])).toEqual(['d', 'e']);
    expect(await nearestDocs([0, 1, 0, 0], ['y'])).toEqual(['b', 'c']);
  });

  it('forgets a removed document in both engines', async () => {
    await index.removeDocument(query, 'e');
    db.prepare('DELETE FROM memory_chunk WHERE document_id = ?').run('e');
    expect(await index.size()).toBe(4);
    expect(await nearestDocs([0, 0.1, 1, 0], ['x'])).toEqual(['d', 'a']);
  });
});
