import type { IngestionSettings } from '../ingestion-settings';
import type { IngestionStore } from '../store';
import { VectorIndex } from './vector-index';

// add/nearest/removeDocument never touch the database; only the start-up load and indexDocument do.
const noStore = {} as IngestionStore;
const settings = (vectorIndexMb = 256) => ({ embeddingUrl: 'http://127.0.0.1:9/v1', vectorIndexMb }) as IngestionSettings;

let seed = 7;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
};
const randomVector = (dim: number) => Array.from({ length: dim }, rand);

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    dot += x * b[i];
    na += x * x;
    nb += b[i] * b[i];
  });
  return dot / Math.sqrt(na * nb);
}

function bruteForce(rows: Map<number, number[]>, query: number[], count: number, keep: (id: number) => boolean = () => true): number[] {
  return [...rows]
    .filter(([id]) => keep(id))
    .map(([id, v]) => ({ id, score: cosine(query, v) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, count)
    .map((r) => r.id);
}

describe('VectorIndex', () => {
  it('scans exactly while small: same neighbours and similarities as brute force', () => {
    const index = new VectorIndex(noStore, settings());
    const rows = new Map<number, number[]>();
    for (let id = 1; id <= 500; id++) {
      rows.set(id, randomVector(16));
      index.add({ id, documentId: `doc${id % 50}`, containerTags: ['t'], vector: rows.get(id)! });
    }
    expect(index.mode).toBe('exact');
    const query = randomVector(16);
    const found = index.nearest(query, undefined, 10);
    expect(found.map((h) => h.id)).toEqual(bruteForce(rows, query, 10));
    expect(found[0].score).toBeCloseTo(cosine(query, rows.get(found[0].id)!), 5);
    expect(index.similarity(query, 42)).toBeCloseTo(cosine(query, rows.get(42)!), 5);
    expect(index.similarity(query, 9999)).toBeUndefined();
  });

  it('builds inverted lists past 8,192 vectors and keeps recall, tag filters and deletions', async () => {
    const dim = 32;
    const index = new VectorIndex(noStore, settings());
    const centres = Array.from({ length: 200 }, () => randomVector(dim));
    const rows = new Map<number, number[]>();
    // 1% of the rows carry the rare tag: a filtered search must widen its probe to fill the page.
    const tagOf = (id: number) => (id % 100 === 0 ? 'rare' : 'common');
    for (let id = 1; id <= 20_000; id++) {
      const centre = centres[id % centres.length];
      const vector = centre.map((x) => x + rand() * 0.3);
      rows.set(id, vector);
      index.add({ id, documentId: `doc${Math.floor(id / 10)}`, containerTags: [tagOf(id)], vector });
    }
    await index.settled();
    expect(index.mode).toBe('lists');
    expect(index.size).toBe(20_000);

    let agreed = 0;
    const queries = 50;
    for (let i = 0; i < queries; i++) {
      const query = centres[i].map((x) => x + rand() * 0.3);
      const exact = new Set(bruteForce(rows, query, 10));
      agreed += index.nearest(query, undefined, 10).filter((h) => exact.has(h.id)).length;
    }
    expect(agreed / (queries * 10)).toBeGreaterThanOrEqual(0.9);

    const rare = index.nearest(randomVector(dim), ['rare'], 20);
    expect(rare).toHaveLength(20);
    expect(rare.every((h) => tagOf(h.id) === 'rare')).toBe(true);

    const query = rows.get(1234)!;
    expect(index.nearest(query, undefined, 1)[0].id).toBe(1234);
    index.removeDocument('doc123');
    const after = index.nearest(query, undefined, 50).map((h) => h.id);
    expect(after).not.toContain(1234);
    expect(after.filter((id) => Math.floor(id / 10) === 123)).toEqual([]);
    expect(index.size).toBe(20_000 - 10);
  });

  it('holds at most vectorIndexMb of vectors: the oldest go first', () => {
    const index = new VectorIndex(noStore, settings(1));
    const dim = 64;
    const vectors = Array.from({ length: 6000 }, () => randomVector(dim));
    vectors.forEach((vector, i) => index.add({ id: i + 1, documentId: `d${i}`, containerTags: [], vector }));
    const capacity = Math.floor((1024 * 1024) / (dim * 4 + 13));
    expect(index.size).toBe(capacity);
    expect(index.similarity(vectors[0], 1)).toBeUndefined();
    expect(index.similarity(vectors[5999], 6000)).toBeCloseTo(1, 5);
  });

  it('starts over when the embedding dimension changes (another model)', () => {
    const index = new VectorIndex(noStore, settings());
    index.add({ id: 1, documentId: 'a', containerTags: [], vector: randomVector(8) });
    index.add({ id: 2, documentId: 'b', containerTags: [], vector: randomVector(12) });
    expect(index.size).toBe(1);
    expect(index.nearest(randomVector(12), undefined, 5).map((h) => h.id)).toEqual([2]);
    expect(index.nearest(randomVector(8), undefined, 5)).toEqual([]);
  });
});
