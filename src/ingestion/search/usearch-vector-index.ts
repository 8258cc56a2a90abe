import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Subscription } from 'rxjs';
import { Index, MetricKind, ScalarKind } from 'usearch';
import type { EventBus } from '../../events/event-bus.service';
import type { IngestionStore, Query } from '../store';
import { readDocumentVectors, StoredVector, VectorHit, VectorIndex } from './vector-index';

/** The signal every replica gets when a document's vectors changed (after the commit). */
export const VECTORS_CHANGED = 'memory.vectors.changed';

interface VectorsChanged {
  origin: string;
  documentIds: string[];
}

const LOAD_PAGE = 2000;
/** Longest stretch of graph building before the start-up load yields to the event loop. */
const SLICE_MS = 20;
/** How long a search waits for the start-up load before it answers from the vectors loaded so far. */
const LOAD_WAIT_MS = 2000;
/** HNSW graph: links per node, and the candidate lists when adding and searching (recall against speed). */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 256;

/** The index every replica builds (the bench builds the same). */
export function usearchIndex(dimensions: number): Index {
  return new Index({ dimensions, metric: MetricKind.Cos, quantization: ScalarKind.I8, connectivity: CONNECTIVITY, expansion_add: EXPANSION_ADD, expansion_search: EXPANSION_SEARCH, multi: false });
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Chunk vectors on PostgreSQL (which has no pgvector here): a usearch HNSW index in this process,
 * cosine over vectors quantized to int8 (1 byte per dimension plus the graph's links: about 0.7 KB
 * of RSS per 256-dimension vector, bench/vector-search.mjs). Built from the stored vectors at start. A
 * replica that changes a document's vectors applies them as its transaction commits and signals
 * the document's id through the event relay; every other replica then reads that document's vectors
 * from the database, so all replicas converge on what was committed, within the relay's delay.
 */
export class UsearchVectorIndex extends VectorIndex implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('VectorIndex');
  private readonly origin = randomUUID();
  private index?: Index;
  private dimensions = 0;
  /** The chunk ids (index keys) of each document, to remove them when it changes. */
  private readonly keysOf = new Map<string, bigint[]>();
  private loading?: Promise<void>;
  /** True once the start-up load has finished. */
  complete = false;
  /** Documents changed elsewhere during the start-up load: refreshed when it ends. */
  private changedWhileLoading?: Set<string>;
  /** Refreshes run one after another, in the order their signals came. */
  private refreshing: Promise<void> = Promise.resolve();
  private subscription?: Subscription;

  constructor(
    private readonly store: IngestionStore,
    private readonly bus: EventBus,
    private readonly enabled: boolean,
  ) {
    super(store.query);
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.subscription = this.bus.signals<VectorsChanged>(VECTORS_CHANGED).subscribe((change) => {
      if (change.origin !== this.origin) this.changed(change.documentIds);
    });
    void this.ready();
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  /**
   * Resolves once the start-up load is done, or after LOAD_WAIT_MS: building the graph of a large
   * index takes minutes, and searches meanwhile answer from the vectors loaded so far (newest first).
   */
  ready(): Promise<void> {
    this.loading ??= this.load().catch((error: Error) => this.logger.error(`Vector index load failed: ${error.message}`, error.stack));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, LOAD_WAIT_MS)));
    return Promise.race([this.loading, waited]).finally(() => clearTimeout(timer));
  }

  /** Resolves when the start-up load is done (tests and benches). */
  loaded(): Promise<void> {
    return this.loading ?? Promise.resolve();
  }

  size(): Promise<number> {
    return Promise.resolve(this.index?.size() ?? 0);
  }

  private async load(): Promise<void> {
    const started = Date.now();
    this.changedWhileLoading = new Set();
    let below: number | undefined;
    for (;;) {
      // Newest first: while a large index builds, searches already reach the recent documents.
      const page = await this.store.query<StoredVector & { document_id: string }>(
        `SELECT id, document_id, embedding FROM memory_chunk WHERE embedding IS NOT NULL${below === undefined ? '' : ' AND id < ?'} ORDER BY id DESC LIMIT ?`,
        [...(below === undefined ? [] : [below]), LOAD_PAGE],
      );
      let slice = performance.now();
      for (const row of page) {
        if (!this.keysOf.has(row.document_id) || !this.index?.contains(BigInt(row.id))) this.add(row.document_id, row);
        if (performance.now() - slice > SLICE_MS) {
          await yieldToLoop();
          slice = performance.now();
        }
      }
      if (page.length < LOAD_PAGE) break;
      below = Number(page[page.length - 1].id);
      await yieldToLoop();
    }
    const changed = this.changedWhileLoading;
    this.changedWhileLoading = undefined;
    this.changed([...changed]);
    await this.refreshing;
    this.complete = true;
    if (this.index?.size()) this.logger.log(`Vector index: ${this.index.size()} vectors of ${this.dimensions} dimensions loaded in ${Date.now() - started} ms`);
  }

  async indexDocument(q: Query, documentId: string): Promise<void> {
    if (!this.enabled) return;
    const rows = await readDocumentVectors(q, documentId);
    this.store.afterCommit(q, () => {
      this.replace(documentId, rows);
      this.tellOthers(documentId);
    });
  }

  removeDocument(q: Query, documentId: string): Promise<void> {
    if (this.enabled)
      this.store.afterCommit(q, () => {
        this.replace(documentId, []);
        this.tellOthers(documentId);
      });
    return Promise.resolve();
  }

  private tellOthers(documentId: string): void {
    // The start-up load may still bring this document's older rows: it reads the document again at its end.
    this.changedWhileLoading?.add(documentId);
    this.bus.signal<VectorsChanged>(VECTORS_CHANGED, { origin: this.origin, documentIds: [documentId] });
  }

  /** Another replica committed new vectors for these documents: read them as committed. */
  private changed(documentIds: string[]): void {
    if (this.changedWhileLoading) {
      for (const id of documentIds) this.changedWhileLoading.add(id);
      return;
    }
    if (!documentIds.length) return;
    this.refreshing = this.refreshing.then(async () => {
      try {
        const rows = await this.store.query<StoredVector & { document_id: string }>(
          `SELECT id, document_id, embedding FROM memory_chunk WHERE document_id IN (${documentIds.map(() => '?').join(', ')}) AND embedding IS NOT NULL ORDER BY id`,
          documentIds,
        );
        for (const id of documentIds) this.replace(id, rows.filter((r) => r.document_id === id));
      } catch (error) {
        this.logger.error(`Vector refresh failed: ${(error as Error).message}`);
      }
    });
  }

  private replace(documentId: string, rows: StoredVector[]): void {
    for (const key of this.keysOf.get(documentId) ?? []) this.index?.remove(key);
    this.keysOf.delete(documentId);
    for (const row of rows) this.add(documentId, row);
  }

  private add(documentId: string, row: StoredVector): void {
    const vector = Float32Array.from(JSON.parse(row.embedding) as number[]);
    if (!vector.length) return;
    if (vector.length !== this.dimensions) {
      // A different embedding model: the old vectors are not comparable with the new ones.
      if (this.dimensions) this.logger.warn(`Embedding dimension changed from ${this.dimensions} to ${vector.length}: vector index restarts`);
      this.dimensions = vector.length;
      this.index = usearchIndex(vector.length);
      this.keysOf.clear();
    }
    const key = BigInt(row.id);
    if (this.index!.contains(key)) this.index!.remove(key);
    this.index!.add(key, vector);
    const keys = this.keysOf.get(documentId);
    if (keys) keys.push(key);
    else this.keysOf.set(documentId, [key]);
  }

  search(query: Float32Array, k: number): Promise<VectorHit[]> {
    if (!this.index || query.length !== this.dimensions || !this.index.size()) return Promise.resolve([]);
    const matches = this.index.search(query, k, 1);
    return Promise.resolve(Array.from(matches.keys, (key, i) => ({ id: Number(key), score: 1 - matches.distances[i] })));
  }
}
