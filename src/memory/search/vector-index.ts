import type { Query } from '../store';

/** A chunk near the query: its id and cosine similarity. */
export interface VectorHit {
  id: number;
  score: number;
}

/** The widest nearest-neighbour request a tag filter may grow to (sqlite-vec's own `k` limit). */
const MAX_K = 4096;

/** Rows of one document's stored vectors, as the pipeline wrote them (`embedding` is a JSON array). */
export interface StoredVector {
  id: number;
  embedding: string;
}

export function readDocumentVectors(q: Query, documentId: string): Promise<StoredVector[]> {
  return q<StoredVector>('SELECT id, embedding FROM memory_chunk WHERE document_id = ? AND embedding IS NOT NULL ORDER BY id', [documentId]);
}

/** How the index came to be, for logs, tests and benches. */
export interface VectorIndexStats {
  source: 'empty' | 'saved' | 'rebuilt';
  /** Why a saved index was not used. */
  reason?: string;
  /** Vectors added and removed to bring a saved index up to the database. */
  added: number;
  removed: number;
  /** Start → the saved index checked and loaded (searches answer from it from then on). */
  openMs: number;
  /** Start → the index complete (brought up to the database, or rebuilt). */
  loadMs: number;
  compactions: number;
  saves: number;
}

/** The in-process HNSW index's state. */
export interface VectorIndexState extends VectorIndexStats {
  /** The start-up load has finished. */
  complete: boolean;
  size: number;
  /** Removed vectors still holding slots in the graph (a compaction drops them). */
  tombstones: number;
  /** Where it is saved (without extension). */
  file?: string;
}

/**
 * Nearest-neighbour search over chunk embeddings, on a maintained engine per database: sqlite-vec in
 * the SQLite file (SqliteVectorIndex), usearch in process on PostgreSQL kept coherent between
 * replicas by the event relay (UsearchVectorIndex). Every write of a document's chunks goes through
 * here, inside the pipeline's transaction.
 */
export abstract class VectorIndex {
  constructor(private readonly lookup: Query) {}

  /** Resolves once the index can answer (the start-up load on PostgreSQL; at once otherwise). */
  ready(): Promise<void> {
    return Promise.resolve();
  }
  /** (Re)indexes a document's stored vectors, replacing its older ones; `q` is the pipeline's transaction. */
  abstract indexDocument(q: Query, documentId: string): Promise<void>;
  /** Forgets a document's vectors; `q` is the transaction that deletes its chunks. */
  abstract removeDocument(q: Query, documentId: string): Promise<void>;
  /** Vectors held (for logs, tests and benches). */
  abstract size(): Promise<number>;
  /** The in-process HNSW index's state (how it was loaded, saves, compactions), when there is one (tests and benches). */
  describe(): VectorIndexState | undefined {
    return undefined;
  }
  /** The `k` nearest chunks by cosine, best first, regardless of tags. */
  protected abstract search(query: Float32Array, k: number): Promise<VectorHit[]>;

  /**
   * The `count` nearest chunks within documents of organization `org` (any when absent) carrying one
   * of `tags` (any document when absent). The index is shared by every organization and neither
   * engine filters while it searches, so a filter asks for 4× more neighbours, and 4× more again,
   * until enough of them are in scope or the engine has no more.
   */
  async nearest(vector: number[], tags: string[] | undefined, count: number, org?: string): Promise<VectorHit[]> {
    if (!vector.length || count < 1) return [];
    await this.ready();
    const query = Float32Array.from(vector);
    if (!tags?.length && org === undefined) return this.search(query, Math.min(count, MAX_K));
    for (let k = Math.min(count * 4, MAX_K); ; k = Math.min(k * 4, MAX_K)) {
      const hits = await this.search(query, k);
      const inScope = await this.withinScope(hits, tags, org);
      if (inScope.length >= count || hits.length < k || k === MAX_K) return inScope.slice(0, count);
    }
  }

  private async withinScope(hits: VectorHit[], tags: string[] | undefined, org: string | undefined): Promise<VectorHit[]> {
    if (!hits.length) return [];
    const rows = await this.lookup<{ id: number; container_tags: string | null }>(
      `SELECT c.id AS id, d.container_tags AS container_tags FROM memory_chunk c JOIN memory_document d ON d.id = c.document_id
       WHERE c.id IN (${hits.map(() => '?').join(', ')})${org === undefined ? '' : ' AND d.org_id = ?'}`,
      [...hits.map((h) => h.id), ...(org === undefined ? [] : [org])],
    );
    const inTags = (r: { container_tags: string | null }) => !tags?.length || (r.container_tags ? (JSON.parse(r.container_tags) as string[]) : []).some((t) => tags.includes(t));
    const allowed = new Set(rows.filter(inTags).map((r) => Number(r.id)));
    return hits.filter((h) => allowed.has(h.id));
  }
}
