import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Subscription } from 'rxjs';
import type { Index } from 'usearch';
import type { EventBus } from '../../events/event-bus.service';
import type { IngestionStore, Query } from '../store';
import { readDocumentVectors, StoredVector, VectorHit, VectorIndex, VectorIndexState, VectorIndexStats } from './vector-index';
import { liveOwners, SavedKeys, VectorIndexFiles } from './vector-index-file';

/** The signal every replica gets when a document's vectors changed (after the commit). */
const VECTORS_CHANGED = 'memory.vectors.changed';

interface VectorsChanged {
  origin: string;
  documentIds: string[];
}

const LOAD_PAGE = 2000;
/** Longest stretch of graph building before the start-up load yields to the event loop. */
const SLICE_MS = 20;
/** Longest stretch of background removals before they yield (they are not urgent: searches skip removed vectors). */
const REMOVE_SLICE_MS = 5;
/** Threads a slice of vectors is added with: every core (the event loop waits for the slice anyway). */
const THREADS = availableParallelism();
/** How long a search waits for the start-up load before it answers from the vectors loaded so far. */
const LOAD_WAIT_MS = 2000;
/** HNSW graph: links per node, and the candidate lists when adding and searching (recall against speed). */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 256;

/** Chunk ids read per page when a saved index is compared with the database. */
const KEY_PAGE = 50_000;
/** Tombstones (removed vectors still in the graph's slots) that start a compaction, and their share of the live vectors. */
const COMPACT_MIN_REMOVED = 1000;
const COMPACT_SHARE = 0.25;
/** Changes applied on top of a loaded index that make it worth saving again at once. */
const SAVE_AFTER_CHANGES = 10_000;

/** The graph's parameters, recorded with a saved index (another layout is rebuilt). */
const USEARCH_LAYOUT = `cos-i8-m${CONNECTIVITY}-ef${EXPANSION_ADD}`;

/** usearch's native module, loaded with the first index (a process without vectors never loads it). */
function usearch(): typeof import('usearch') {
  return require('usearch') as typeof import('usearch');
}

/** The index every replica builds (the bench builds the same). */
export function usearchIndex(dimensions: number): Index {
  const { Index: UsearchIndex, MetricKind, ScalarKind } = usearch();
  return new UsearchIndex({ dimensions, metric: MetricKind.Cos, quantization: ScalarKind.I8, connectivity: CONNECTIVITY, expansion_add: EXPANSION_ADD, expansion_search: EXPANSION_SEARCH, multi: false });
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A usearch graph and, for each document, the chunk ids (the graph's keys) of its vectors, to remove them when it changes. */
interface Graph {
  index?: Index;
  /** Set by the first vector added (0 while empty). */
  dimensions: number;
  keysOf: Map<string, bigint[]>;
  /**
   * Keys of removed vectors still in the index. usearch's remove takes time in proportion to the index
   * (about 0.25 ms a key at 80,000 vectors, 2–3 ms at a million), so removals are made a slice at a
   * time in the background and searches skip these keys meanwhile.
   */
  removing: Set<bigint>;
}

/** The document a saved index files its keys of removed vectors under (no document has an empty id): the next start drops them. */
const REMOVED = '';

type DocumentVector = StoredVector & { document_id: string };

const emptyGraph = (dimensions = 0): Graph => ({ dimensions, keysOf: new Map(), removing: new Set() });

/** A stored vector (JSON text) as usearch takes it. */
const vectorOf = (row: StoredVector): Float32Array => Float32Array.from(JSON.parse(row.embedding) as number[]);

function keep(graph: Graph, documentId: string, key: bigint): void {
  const keys = graph.keysOf.get(documentId);
  if (keys) keys.push(key);
  else graph.keysOf.set(documentId, [key]);
}

/** Where a replica keeps its saved index, and for what (see VectorIndexFiles). */
interface VectorPersistence {
  /** Directory of the saved indexes (`$KEEL_DATA_DIR/vectors`). */
  dir: string;
  /** The embedding model and the database the vectors belong to. */
  model: string;
  database: string;
  /** Periodic save of a changed index; 0: saved at shutdown only. */
  intervalMs: number;
}

/**
 * Chunk vectors on PostgreSQL (which has no pgvector here): a usearch HNSW index in this process,
 * cosine over vectors quantized to int8 (1 byte per dimension plus the graph's links: about 0.7 KB
 * of RSS per 256-dimension vector, bench/vector-search.mjs). A replica that changes a document's
 * vectors applies them as its transaction commits and signals the document's id through the event
 * relay; every other replica then reads that document's vectors from the database, so all replicas
 * converge on what was committed, within the relay's delay.
 *
 * Each replica saves its index beside the data (periodically when it changed, and at shutdown) with
 * the chunk id and document of every vector. At start it loads that file and compares its keys with
 * the chunk ids in the database: vectors of chunks deleted since are removed, vectors stored since (or
 * whose chunk id now belongs to another document) are added, so it answers at full recall within
 * seconds instead of rebuilding the graph for minutes. A file saved for another model, database or
 * graph layout, or whose checksum fails, is ignored and the index is rebuilt from the database.
 * A removed vector is marked at once (searches skip it) and leaves the graph in the background (see
 * Graph.removing), as a tombstone; once tombstones reach a quarter of the live vectors the index is
 * rebuilt in the background (the old one answers meanwhile) and swapped in.
 */
export class UsearchVectorIndex extends VectorIndex implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('VectorIndex');
  private readonly origin = randomUUID();
  private graph: Graph = emptyGraph();
  private loading?: Promise<void>;
  /** The first part of the load: the saved index read and handed to usearch (before it is compared with the database). */
  private opening?: Promise<SavedKeys | undefined>;
  /** True once the start-up load has finished. */
  complete = false;
  /** Documents changed elsewhere during the start-up load: refreshed when it ends. */
  private changedWhileLoading?: Set<string>;
  /** Documents changed during a compaction: refreshed in the compacted index when it is swapped in. */
  private changedWhileCompacting?: Set<string>;
  /** Refreshes run one after another, in the order their signals came. */
  private refreshing: Promise<void> = Promise.resolve();
  private subscription?: Subscription;
  private files?: VectorIndexFiles;
  private saveTimer?: NodeJS.Timeout;
  private saving?: Promise<void>;
  /** Vectors added or removed since the index was last saved (or loaded). */
  private changes = 0;
  /** Removed vectors whose slots the graph still holds. */
  private tombstones = 0;
  /** The background removal of the graph's marked vectors, while it runs. */
  private removals?: Promise<void>;
  /** Vectors added per slice when building: about SLICE_MS's worth at the last slice's rate. */
  private sliceSize = 64;
  private stats: VectorIndexStats = { source: 'empty', added: 0, removed: 0, openMs: 0, loadMs: 0, compactions: 0, saves: 0 };

  constructor(
    private readonly store: IngestionStore,
    private readonly bus: EventBus,
    private readonly enabled: boolean,
    private readonly persistence?: VectorPersistence,
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

  async onApplicationShutdown(): Promise<void> {
    this.subscription?.unsubscribe();
    clearInterval(this.saveTimer);
    await this.saving;
    if (this.complete) await this.save();
    liveOwners.delete(this.origin);
    await this.files?.release().catch(() => undefined);
  }

  /**
   * Resolves once the start-up load is done, or after LOAD_WAIT_MS: building the graph of a large
   * index takes minutes, and searches meanwhile answer from the vectors loaded so far (newest first).
   */
  override ready(): Promise<void> {
    this.loading ??= this.load().catch((error: Error) => this.logger.error(`Vector index load failed: ${error.message}`, error.stack));
    // A saved index is worth waiting for (it loads in about a second per 100 MB, at full recall); the rest is raced with LOAD_WAIT_MS.
    return (this.opening?.catch(() => undefined) ?? Promise.resolve()).then(() => {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, LOAD_WAIT_MS)));
      return Promise.race([this.loading!, waited]).finally(() => clearTimeout(timer));
    });
  }

  /** Resolves when the start-up load is done (tests and benches). */
  loaded(): Promise<void> {
    return this.loading ?? Promise.resolve();
  }

  size(): Promise<number> {
    return Promise.resolve(this.liveSize());
  }

  /** Vectors in the graph that are not removed. */
  private liveSize(): number {
    return (this.graph.index?.size() ?? 0) - this.graph.removing.size;
  }

  /** How the index was loaded, and what has happened to it since. */
  override describe(): VectorIndexState {
    return { ...this.stats, complete: this.complete, size: this.liveSize(), tombstones: this.tombstones, file: this.files?.base };
  }

  private identity() {
    return { model: this.persistence!.model, database: this.persistence!.database, layout: USEARCH_LAYOUT };
  }

  private async load(): Promise<void> {
    const started = Date.now();
    this.changedWhileLoading = new Set();
    this.opening = this.open();
    const saved = await this.opening;
    this.stats.openMs = Date.now() - started;
    if (saved) await this.reconcile(saved);
    else await this.forEachStoredPage((rows) => this.addAll(this.graph, rows));
    const changed = this.changedWhileLoading;
    this.changedWhileLoading = undefined;
    this.changed([...changed]);
    await this.refreshing;
    this.complete = true;
    this.stats.loadMs = Date.now() - started;
    this.removeSoon();
    if (this.graph.index?.size() || saved) {
      const how = saved ? `from ${this.files!.base}.usearch (+${this.stats.added} −${this.stats.removed} since it was saved)` : `from the database${this.stats.reason && this.stats.reason !== 'none saved' ? ` (saved index not used: ${this.stats.reason})` : ''}`;
      this.logger.log(`Vector index: ${this.liveSize()} vectors of ${this.graph.dimensions} dimensions loaded ${how} in ${this.stats.loadMs} ms`);
    }
    if (this.files && this.persistence!.intervalMs > 0) this.saveTimer = setInterval(() => void this.save(), this.persistence!.intervalMs).unref();
    // A rebuilt index is saved at once: the next start loads it instead of rebuilding again.
    if (this.graph.index && (!saved || this.changes >= SAVE_AFTER_CHANGES)) void this.save();
  }

  /** Claims this replica's files and loads the saved index that fits (none: undefined, and why in stats). */
  private async open(): Promise<SavedKeys | undefined> {
    if (this.persistence) {
      try {
        liveOwners.add(this.origin);
        this.files ??= await VectorIndexFiles.claim(this.persistence.dir, this.origin);
      } catch (error) {
        this.logger.warn(`Vector index will not be saved: ${(error as Error).message}`);
      }
    }
    if (!this.files) return undefined;
    const saved = await this.files.read(this.identity());
    let reason = typeof saved === 'string' ? saved : undefined;
    if (typeof saved !== 'string') {
      try {
        const index = usearchIndex(saved.meta.dimensions);
        index.load(saved.indexPath);
        if (index.size() !== saved.meta.count) throw new Error(`it holds ${index.size()} vectors, its meta ${saved.meta.count}`);
        this.graph = { ...emptyGraph(saved.meta.dimensions), index };
        this.stats = { ...this.stats, source: 'saved', reason: undefined };
        return saved;
      } catch (error) {
        reason = (error as Error).message;
      }
    }
    this.stats = { ...this.stats, source: 'rebuilt', reason };
    if (reason !== 'none saved') this.logger.warn(`Saved vector index ignored (${reason}): rebuilding it from the database`);
    return undefined;
  }

  /**
   * Brings a loaded index up to the database: one ordered walk over the chunk ids with vectors beside
   * the saved keys (both ascending). Reading ids is fast; only the vectors added since are read whole.
   */
  private async reconcile(saved: SavedKeys): Promise<void> {
    const { keys, documentOf, meta } = saved;
    const missing: number[] = [];
    let removed = 0;
    let i = 0;
    const drop = (key: number) => {
      if (this.forget(BigInt(key))) removed++;
    };
    let after = -1;
    for (;;) {
      const page = await this.store.query<{ id: number; document_id: string }>('SELECT id, document_id FROM memory_chunk WHERE embedding IS NOT NULL AND id > ? ORDER BY id LIMIT ?', [after, KEY_PAGE]);
      for (const row of page) {
        const id = Number(row.id);
        while (i < keys.length && keys[i] < id) drop(keys[i++]);
        if (i < keys.length && keys[i] === id) {
          if (meta.documents[documentOf[i]] === row.document_id) keep(this.graph, row.document_id, BigInt(id));
          else {
            // The same chunk id for another document (a restored or replaced database): its vector is read again.
            drop(id);
            missing.push(id);
          }
          i++;
        } else missing.push(id);
      }
      if (page.length < KEY_PAGE) break;
      after = Number(page[page.length - 1].id);
      await yieldToLoop();
    }
    while (i < keys.length) drop(keys[i++]);
    for (let start = 0; start < missing.length; start += LOAD_PAGE) {
      await this.addAll(this.graph, await this.storedVectors('id', missing.slice(start, start + LOAD_PAGE)));
    }
    this.stats.added = missing.length;
    this.stats.removed = removed;
    this.changes = missing.length + removed;
    this.maybeCompact();
  }

  /** The stored vectors of these chunks (`id`) or documents (`document_id`), by chunk id. */
  private storedVectors(column: 'id' | 'document_id', values: (number | string)[]): Promise<DocumentVector[]> {
    const list = values.map(() => '?').join(', ');
    return this.store.query<DocumentVector>(
      `SELECT id, document_id, embedding FROM memory_chunk WHERE ${column} IN (${list}) AND embedding IS NOT NULL ORDER BY id`,
      values,
    );
  }

  /** Every stored vector, newest first (searches reach the recent documents while a large index builds). */
  private async forEachStoredPage(visit: (rows: DocumentVector[]) => Promise<unknown>): Promise<void> {
    let below: number | undefined;
    for (;;) {
      const page = await this.store.query<DocumentVector>(
        `SELECT id, document_id, embedding FROM memory_chunk WHERE embedding IS NOT NULL${below === undefined ? '' : ' AND id < ?'} ORDER BY id DESC LIMIT ?`,
        [...(below === undefined ? [] : [below]), LOAD_PAGE],
      );
      await visit(page);
      if (page.length < LOAD_PAGE) break;
      below = Number(page[page.length - 1].id);
      await yieldToLoop();
    }
  }

  /**
   * Adds rows' vectors to a graph in slices of about SLICE_MS, each slice on every core (usearch's own
   * threads: building the graph one vector at a time on the event loop ran at a fraction of that), and
   * gives the event loop back between slices. The first vector sets an empty graph's dimensions; vectors
   * of other dimensions are skipped, and so are chunk ids already in the graph (a refresh may have added
   * them while this waited). Stops when the graph is replaced meanwhile (a compaction's swap, a new model).
   */
  private async addAll(graph: Graph, rows: DocumentVector[]): Promise<void> {
    const live = graph === this.graph;
    let at = 0;
    while (at < rows.length) {
      if (live && graph !== this.graph) return;
      const slice = rows.slice(at, at + this.sliceSize);
      at += slice.length;
      const keys: bigint[] = [];
      const owners: string[] = [];
      const vectors: Float32Array[] = [];
      for (const row of slice) {
        const vector = vectorOf(row);
        if (!vector.length || (graph.dimensions && vector.length !== graph.dimensions)) continue;
        graph.dimensions ||= vector.length;
        const key = BigInt(row.id);
        if (graph.index?.contains(key)) {
          if (!graph.removing.delete(key)) continue;
          // Removed, and stored again (for another document): out of the graph now, so it can be added.
          graph.index.remove(key);
        }
        keys.push(key);
        owners.push(row.document_id);
        vectors.push(vector);
      }
      if (keys.length) {
        const matrix = new Float32Array(keys.length * graph.dimensions);
        vectors.forEach((vector, i) => matrix.set(vector, i * graph.dimensions));
        graph.index ??= usearchIndex(graph.dimensions);
        const started = performance.now();
        graph.index.add(BigUint64Array.from(keys), matrix, THREADS);
        // The slice's next size: what takes about SLICE_MS at the rate this one was added.
        const perVector = (performance.now() - started) / keys.length;
        this.sliceSize = Math.max(16, Math.min(LOAD_PAGE, Math.floor(SLICE_MS / Math.max(perVector, 1e-3))));
        keys.forEach((key, i) => keep(graph, owners[i], key));
        if (live) this.changes += keys.length;
      }
      await yieldToLoop();
    }
  }

  /** Saves the index when it changed since it was last saved (one save at a time). */
  save(): Promise<void> {
    if (!this.files || !this.graph.index || !this.changes || !this.complete || this.changedWhileCompacting) return this.saving ?? Promise.resolve();
    this.saving ??= (async () => {
      const changes = this.changes;
      this.changes = 0;
      const started = Date.now();
      try {
        const { index, keysOf, removing, dimensions } = this.graph;
        // The file holds the removed vectors not yet out of the graph too, filed under REMOVED: the next start drops them.
        const keys = removing.size ? new Map([...keysOf, [REMOVED, [...removing]]]) : keysOf;
        const count = await this.files!.write((path) => index!.save(path), keys, this.identity(), dimensions);
        this.stats.saves++;
        this.logger.debug?.(`Vector index saved: ${count} vectors in ${Date.now() - started} ms`);
      } catch (error) {
        this.changes += changes;
        this.logger.warn(`Vector index not saved: ${(error as Error).message}`);
      } finally {
        this.saving = undefined;
      }
    })();
    return this.saving;
  }

  /**
   * Rebuilds the graph without its tombstones once they are many: a fresh index filled from the
   * database in the background, swapped in when full; documents changed meanwhile are read again.
   */
  private maybeCompact(): void {
    const size = this.graph.index?.size() ?? 0;
    if (!this.complete || this.changedWhileCompacting || this.tombstones < Math.max(COMPACT_MIN_REMOVED, size * COMPACT_SHARE)) return;
    void this.compact();
  }

  private async compact(): Promise<void> {
    const started = Date.now();
    const dropped = this.tombstones;
    this.changedWhileCompacting = new Set();
    try {
      // The old graph answers (and takes changes) while the fresh one is built beside it.
      const fresh = emptyGraph(this.graph.dimensions);
      await this.forEachStoredPage((rows) => this.addAll(fresh, rows));
      if (this.graph.dimensions !== fresh.dimensions) return;
      this.graph = fresh;
      this.tombstones = 0;
      this.changes++;
      const changed = this.changedWhileCompacting;
      this.changedWhileCompacting = undefined;
      this.changed([...changed]);
      await this.refreshing;
      this.stats.compactions++;
      this.logger.log(`Vector index compacted: ${dropped} removed vectors dropped, ${this.liveSize()} kept, in ${Date.now() - started} ms`);
    } catch (error) {
      this.logger.error(`Vector index compaction failed: ${(error as Error).message}`);
    } finally {
      this.changedWhileCompacting = undefined;
    }
  }

  async indexDocument(q: Query, documentId: string): Promise<void> {
    if (this.enabled) this.replaceOnCommit(q, documentId, await readDocumentVectors(q, documentId));
  }

  removeDocument(q: Query, documentId: string): Promise<void> {
    if (this.enabled) this.replaceOnCommit(q, documentId, []);
    return Promise.resolve();
  }

  /** Once `q` commits: the document's vectors here, and the other replicas told. */
  private replaceOnCommit(q: Query, documentId: string, rows: StoredVector[]): void {
    this.store.afterCommit(q, () => {
      this.replace(documentId, rows);
      // The start-up load may still bring this document's older rows: it reads the document again at its end.
      this.changedWhileLoading?.add(documentId);
      this.bus.signal<VectorsChanged>(VECTORS_CHANGED, { origin: this.origin, documentIds: [documentId] });
    });
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
        const rows = await this.storedVectors('document_id', documentIds);
        for (const id of documentIds) this.replace(id, rows.filter((r) => r.document_id === id));
      } catch (error) {
        this.logger.error(`Vector refresh failed: ${(error as Error).message}`);
      }
    });
  }

  private replace(documentId: string, rows: StoredVector[]): void {
    for (const key of this.graph.keysOf.get(documentId) ?? []) this.forget(key);
    this.graph.keysOf.delete(documentId);
    for (const row of rows) this.add(documentId, row);
    this.maybeCompact();
    // After maybeCompact: a compaction this change starts may read the document before its commit shows.
    this.changedWhileCompacting?.add(documentId);
  }

  private add(documentId: string, row: StoredVector): void {
    const vector = vectorOf(row);
    if (!vector.length) return;
    if (vector.length !== this.graph.dimensions) {
      // A different embedding model: the old vectors are not comparable with the new ones.
      if (this.graph.dimensions) this.logger.warn(`Embedding dimension changed from ${this.graph.dimensions} to ${vector.length}: vector index restarts`);
      this.graph = { ...emptyGraph(vector.length), index: usearchIndex(vector.length) };
      this.tombstones = 0;
    }
    const key = BigInt(row.id);
    if (this.graph.index!.contains(key)) {
      if (!this.graph.removing.delete(key)) this.tombstones++;
      this.graph.index!.remove(key);
    }
    this.graph.index!.add(key, vector);
    this.changes++;
    keep(this.graph, documentId, key);
  }

  /** Marks a vector removed (see Graph.removing); false when the graph does not hold it. */
  private forget(key: bigint): boolean {
    const { index, removing } = this.graph;
    if (!index?.contains(key) || removing.has(key)) return false;
    removing.add(key);
    this.tombstones++;
    this.changes++;
    this.removeSoon();
    return true;
  }

  /**
   * Removes the marked vectors from the graph, REMOVE_SLICE_MS at a time, giving the event loop back between
   * slices; after the start-up load (it would take turns with the load's own slices, and searches skip
   * the marked vectors meanwhile).
   */
  private removeSoon(): void {
    if (!this.complete) return;
    this.removals ??= (async () => {
      try {
        for (;;) {
          const { index, removing } = this.graph;
          if (!index || !removing.size) return;
          const started = performance.now();
          for (const key of removing) {
            index.remove(key);
            removing.delete(key);
            if (performance.now() - started > REMOVE_SLICE_MS) break;
          }
          await yieldToLoop();
        }
      } finally {
        this.removals = undefined;
      }
    })();
  }

  search(query: Float32Array, k: number): Promise<VectorHit[]> {
    const { index, removing } = this.graph;
    if (!index || query.length !== this.graph.dimensions || !index.size()) return Promise.resolve([]);
    const matches = index.search(query, k + Math.min(removing.size, k), 1);
    const hits: VectorHit[] = [];
    for (let i = 0; i < matches.keys.length && hits.length < k; i++) {
      if (!removing.has(matches.keys[i])) hits.push({ id: Number(matches.keys[i]), score: 1 - matches.distances[i] });
    }
    return Promise.resolve(hits);
  }
}
