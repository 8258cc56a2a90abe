import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Query } from '../store';
import type { UsearchVectorIndex } from './usearch-vector-index';
import { readDocumentVectors, VectorHit, VectorIndex, VectorIndexState } from './vector-index';

const SQLITE_VECTOR_TABLE = 'memory_chunk_vec';
/** Up to this many vectors an exact vec0 scan answers in a few milliseconds; beyond, the HNSW index does. */
const EXACT_LIMIT = 20_000;

/** The statement that creates the vec0 table for vectors of `dimensions` (its dimension is part of its type). */
export function createVectorTableSql(dimensions: number): string {
  return `CREATE VIRTUAL TABLE IF NOT EXISTS ${SQLITE_VECTOR_TABLE} USING vec0(chunk_id INTEGER PRIMARY KEY, embedding float[${dimensions}] distance_metric=cosine)`;
}

/**
 * Chunk vectors in the SQLite file, in a sqlite-vec `vec0` table (vec0 packs vectors in contiguous
 * blocks). One process owns the file, so the pipeline's transaction writes the vectors with the chunks
 * and nothing else needs telling. The table's dimension is the embedding model's: created with the
 * first vector (or by the migration that moved older databases' vectors in), and created anew when the
 * model's dimension changes. sqlite-vec 0.1 searches by scanning every vector (exact, but about 6 s at
 * a million on the bench machine): beyond EXACT_LIMIT vectors, searches go to the same usearch HNSW
 * index PostgreSQL replicas use, built beside the table the first time it is that large.
 */
export class SqliteVectorIndex extends VectorIndex implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('VectorIndex');
  private dimensions?: number | null;
  private count?: number;

  constructor(
    private readonly query: Query,
    private readonly approximate?: UsearchVectorIndex,
    private readonly exactLimit = EXACT_LIMIT,
  ) {
    super(query);
  }

  /** A table already past the exact scan loads its HNSW index at start (from its saved file when there is one). */
  async onApplicationBootstrap(): Promise<void> {
    if (this.approximate && (await this.size()) > this.exactLimit) void this.approximate.ready();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.approximate?.onApplicationShutdown();
  }

  override describe(): VectorIndexState | undefined {
    return this.approximate?.describe();
  }

  /** The table's dimension, read from its definition; null when there is no table yet. */
  private async tableDimensions(q: Query): Promise<number | null> {
    if (this.dimensions !== undefined) return this.dimensions;
    const [table] = await q<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, [SQLITE_VECTOR_TABLE]);
    const found = table ? /float\[(\d+)\]/.exec(table.sql) : null;
    this.dimensions = found ? Number(found[1]) : null;
    return this.dimensions;
  }

  async indexDocument(q: Query, documentId: string): Promise<void> {
    await this.removeDocument(q, documentId);
    const rows = await readDocumentVectors(q, documentId);
    for (const row of rows) {
      const vector = JSON.parse(row.embedding) as number[];
      if (!vector.length) continue;
      const dimensions = await this.tableDimensions(q);
      if (dimensions !== vector.length) {
        // A different embedding model: the old vectors are not comparable with the new ones.
        if (dimensions !== null) this.logger.warn(`Embedding dimension changed from ${dimensions} to ${vector.length}: the vector table restarts`);
        await q(`DROP TABLE IF EXISTS ${SQLITE_VECTOR_TABLE}`);
        await q(createVectorTableSql(vector.length));
        this.dimensions = vector.length;
      }
      await q(`INSERT INTO ${SQLITE_VECTOR_TABLE} (chunk_id, embedding) VALUES (?, ?)`, [BigInt(row.id), Buffer.from(Float32Array.from(vector).buffer)]);
    }
    this.count = undefined;
    await this.approximate?.indexDocument(q, documentId);
  }

  /** Called before the chunks are deleted: vec0 deletes by primary key, one point lookup each. */
  async removeDocument(q: Query, documentId: string): Promise<void> {
    if ((await this.tableDimensions(q)) === null) return;
    const chunks = await q<{ id: number }>('SELECT id FROM memory_chunk WHERE document_id = ?', [documentId]);
    for (const { id } of chunks) await q(`DELETE FROM ${SQLITE_VECTOR_TABLE} WHERE chunk_id = ?`, [BigInt(id)]);
    this.count = undefined;
    await this.approximate?.removeDocument(q, documentId);
  }

  async size(): Promise<number> {
    if ((await this.tableDimensions(this.query)) === null) return 0;
    if (this.count === undefined) {
      const [row] = await this.query<{ n: number }>(`SELECT count(*) AS n FROM ${SQLITE_VECTOR_TABLE}`);
      this.count = Number(row.n);
    }
    return this.count;
  }

  protected async search(query: Float32Array, k: number): Promise<VectorHit[]> {
    if ((await this.tableDimensions(this.query)) !== query.length) return [];
    if (this.approximate && (await this.size()) > this.exactLimit) {
      // Built the first time the table outgrows the exact scan (at start, or later), which answers meanwhile.
      void this.approximate.ready();
      if (this.approximate.complete) return this.approximate.search(query, k);
    }
    // k is an integer literal: vec0 rejects a k bound as a float.
    const rows = await this.query<{ id: number; distance: number }>(
      `SELECT chunk_id AS id, distance FROM ${SQLITE_VECTOR_TABLE} WHERE embedding MATCH ? AND k = ${Math.floor(k)} ORDER BY distance`,
      [Buffer.from(query.buffer, query.byteOffset, query.byteLength)],
    );
    return rows.map((r) => ({ id: Number(r.id), score: 1 - r.distance }));
  }
}

/**
 * Statements that rebuild the vec0 table from the vectors stored with the chunks (a restored or moved
 * database), for the newest vector's dimension, as the migration that introduced the table did.
 */
export async function rebuildVectorsSql(q: Query): Promise<string[]> {
  const [latest] = await q<{ dimensions: number }>('SELECT json_array_length(embedding) AS dimensions FROM memory_chunk WHERE embedding IS NOT NULL ORDER BY id DESC LIMIT 1');
  const drop = `DROP TABLE IF EXISTS ${SQLITE_VECTOR_TABLE}`;
  const dimensions = Number(latest?.dimensions ?? 0);
  if (!dimensions) return [drop];
  return [
    drop,
    createVectorTableSql(dimensions),
    `INSERT INTO ${SQLITE_VECTOR_TABLE} (chunk_id, embedding) SELECT id, vec_f32(embedding) FROM memory_chunk WHERE embedding IS NOT NULL AND json_array_length(embedding) = ${dimensions}`,
  ];
}
