import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { INGESTION_SETTINGS } from '../ingestion-settings';
import type { IngestionSettings } from '../ingestion-settings';
import { IngestionStore, Query } from '../store';

/** Below this many vectors an exact scan is as fast as probing lists. */
const EXACT_LIMIT = 8192;
/** Lists probed per search, as a share of all lists (more lists probed = better recall, slower). */
const PROBE_SHARE = 0.05;
/** Vectors of the k-means sample per centroid, and its rounds. */
const SAMPLE_PER_LIST = 24;
const TRAIN_ROUNDS = 6;
/** Longest stretch of index building before it yields to the event loop (searches keep answering). */
const SLICE_MS = 4;
const LOAD_PAGE = 2000;

export interface VectorRow {
  id: number;
  documentId: string;
  containerTags: string[];
  vector: number[];
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function normalise(vector: ArrayLike<number>, out: Float32Array, at: number, dim: number): boolean {
  let norm = 0;
  for (let i = 0; i < dim; i++) norm += vector[i] * vector[i];
  if (!(norm > 0) || !Number.isFinite(norm)) return false;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dim; i++) out[at + i] = vector[i] * scale;
  return true;
}

function dot(a: Float32Array, aAt: number, b: Float32Array, bAt: number, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < dim; i += 4) {
    s0 += a[aAt + i] * b[bAt + i];
    s1 += a[aAt + i + 1] * b[bAt + i + 1];
    s2 += a[aAt + i + 2] * b[bAt + i + 2];
    s3 += a[aAt + i + 3] * b[bAt + i + 3];
  }
  for (; i < dim; i++) s0 += a[aAt + i] * b[bAt + i];
  return s0 + s1 + s2 + s3;
}

/** The `count` best (score, row) pairs seen, best first; insertion costs only when a pair beats the worst kept. */
class TopK {
  readonly scores: Float64Array;
  readonly rows: Int32Array;
  size = 0;
  constructor(readonly count: number) {
    this.scores = new Float64Array(count);
    this.rows = new Int32Array(count);
  }
  get floor(): number {
    return this.size < this.count ? -Infinity : this.scores[this.count - 1];
  }
  push(score: number, row: number): void {
    if (score <= this.floor) return;
    let i = Math.min(this.size, this.count - 1);
    while (i > 0 && this.scores[i - 1] < score) {
      this.scores[i] = this.scores[i - 1];
      this.rows[i] = this.rows[i - 1];
      i--;
    }
    this.scores[i] = score;
    this.rows[i] = row;
    if (this.size < this.count) this.size++;
  }
}

/** An inverted-file partition of the rows: k-means centroids and, per centroid, the rows nearest to it. */
interface Lists {
  centroids: Float32Array;
  members: number[][];
  trainedOn: number;
}

/**
 * Nearest-neighbour search over chunk embeddings, held in this process's memory: PostgreSQL here has
 * no pgvector and SQLite no vector index. Vectors are normalised Float32 rows, so cosine is a dot
 * product. Up to EXACT_LIMIT live rows are scanned exactly; beyond, an inverted file (k-means over a
 * sample, built in short slices so searches keep answering) limits a search to the rows of the
 * nearest 5% of lists, ranked exactly. Memory is bounded by `vectorIndexMb`: the newest vectors are
 * kept, older ones are reachable through full-text hits only. Loaded once at start; kept current by
 * the pipeline's index/delete calls in this process (another replica's writes arrive at its next start).
 */
@Injectable()
export class VectorIndex implements OnApplicationBootstrap {
  private readonly logger = new Logger('VectorIndex');
  private dim = 0;
  private data = new Float32Array(0);
  private ids = new Float64Array(0);
  private tagSets = new Uint32Array(0);
  private live = new Uint8Array(0);
  private rows = 0;
  private liveRows = 0;
  private readonly rowOf = new Map<number, number>();
  private readonly rowsOfDocument = new Map<string, number[]>();
  private readonly tagSetIds = new Map<string, number>();
  private readonly tagSetTags: string[][] = [];
  private lists?: Lists;
  private building?: Promise<void>;
  private generation = 0;
  private loading?: Promise<void>;
  private loadingNow = false;
  /** Rows before this one are all dead (eviction resumes here instead of rescanning). */
  private oldest = 0;
  /** Documents deleted while the first load runs: rows it already read for them must not come back. */
  private readonly removedWhileLoading = new Set<string>();

  constructor(
    private readonly store: IngestionStore,
    @Inject(INGESTION_SETTINGS) private readonly settings: IngestionSettings,
  ) {}

  get enabled(): boolean {
    return !!this.settings.embeddingUrl;
  }

  onApplicationBootstrap(): void {
    if (this.enabled) void this.ready();
  }

  /** Resolves once the stored vectors are loaded (at start; later calls resolve at once). */
  ready(): Promise<void> {
    this.loading ??= this.load().catch((error: Error) => this.logger.error(`Vector index load failed: ${error.message}`, error.stack));
    return this.loading;
  }

  get size(): number {
    return this.liveRows;
  }

  private get capacityRows(): number {
    return this.dim ? Math.max(1, Math.floor((this.settings.vectorIndexMb * 1024 * 1024) / (this.dim * 4 + 13))) : 0;
  }

  private async load(): Promise<void> {
    this.loadingNow = true;
    try {
      await this.loadPages();
    } finally {
      this.loadingNow = false;
      this.removedWhileLoading.clear();
    }
    this.maybeRebuild();
  }

  private async loadPages(): Promise<void> {
    const started = Date.now();
    let below: number | undefined;
    for (;;) {
      const page = await this.store.query<{ id: number; document_id: string; embedding: string; container_tags: string | null }>(
        `SELECT c.id AS id, c.document_id AS document_id, c.embedding AS embedding, d.container_tags AS container_tags
         FROM memory_chunk c JOIN memory_document d ON d.id = c.document_id
         WHERE c.embedding IS NOT NULL${below === undefined ? '' : ' AND c.id < ?'} ORDER BY c.id DESC LIMIT ?`,
        [...(below === undefined ? [] : [below]), LOAD_PAGE],
      );
      for (const r of page) {
        if (this.removedWhileLoading.has(r.document_id) || this.rowOf.has(Number(r.id))) continue;
        if (this.dim && this.liveRows >= this.capacityRows) break;
        this.add({ id: Number(r.id), documentId: r.document_id, containerTags: r.container_tags ? (JSON.parse(r.container_tags) as string[]) : [], vector: JSON.parse(r.embedding) as number[] }, false);
      }
      if (page.length < LOAD_PAGE || (this.dim && this.liveRows >= this.capacityRows)) break;
      below = Number(page[page.length - 1].id);
      await yieldToLoop();
    }
    if (this.liveRows) this.logger.log(`Vector index: ${this.liveRows} vectors of ${this.dim} dimensions loaded in ${Date.now() - started} ms`);
  }

  /** Reads a document's stored vectors inside the pipeline's transaction and indexes them (replacing older ones). */
  async indexDocument(q: Query, documentId: string): Promise<void> {
    if (!this.enabled) return;
    const rows = await q<{ id: number; embedding: string; container_tags: string | null }>(
      `SELECT c.id AS id, c.embedding AS embedding, d.container_tags AS container_tags FROM memory_chunk c JOIN memory_document d ON d.id = c.document_id
       WHERE c.document_id = ? AND c.embedding IS NOT NULL`,
      [documentId],
    );
    this.removeDocument(documentId);
    for (const r of rows) this.add({ id: Number(r.id), documentId, containerTags: r.container_tags ? (JSON.parse(r.container_tags) as string[]) : [], vector: JSON.parse(r.embedding) as number[] });
  }

  removeDocument(documentId: string): void {
    if (this.loadingNow) this.removedWhileLoading.add(documentId);
    for (const row of this.rowsOfDocument.get(documentId) ?? []) {
      if (!this.live[row]) continue;
      this.live[row] = 0;
      this.rowOf.delete(this.ids[row]);
      this.liveRows--;
    }
    this.rowsOfDocument.delete(documentId);
    this.maybeCompact();
  }

  add(row: VectorRow, evict = true): void {
    if (!row.vector.length) return;
    if (this.dim && row.vector.length !== this.dim) {
      // A different embedding model: the old vectors are not comparable with the new ones.
      this.logger.warn(`Embedding dimension changed from ${this.dim} to ${row.vector.length}: vector index restarts`);
      this.clear();
    }
    if (!this.dim) this.dim = row.vector.length;
    if (evict) while (this.liveRows >= this.capacityRows) this.evictOldest();
    const old = this.rowOf.get(row.id);
    if (old !== undefined) {
      this.live[old] = 0;
      this.liveRows--;
      this.rowOf.delete(row.id);
    }
    this.grow(this.rows + 1);
    const at = this.rows;
    if (!normalise(row.vector, this.data, at * this.dim, this.dim)) return;
    this.ids[at] = row.id;
    this.tagSets[at] = this.tagSetId(row.containerTags);
    this.live[at] = 1;
    this.rows++;
    this.liveRows++;
    this.rowOf.set(row.id, at);
    const ofDoc = this.rowsOfDocument.get(row.documentId);
    if (ofDoc) ofDoc.push(at);
    else this.rowsOfDocument.set(row.documentId, [at]);
    if (this.lists) this.lists.members[this.nearestList(this.lists, this.data, at * this.dim)].push(at);
    if (evict) this.maybeCompact();
    this.maybeRebuild();
  }

  private evictOldest(): void {
    for (; this.oldest < this.rows; this.oldest++) {
      if (!this.live[this.oldest]) continue;
      this.live[this.oldest] = 0;
      this.rowOf.delete(this.ids[this.oldest]);
      this.liveRows--;
      return;
    }
  }

  private clear(): void {
    this.generation++;
    this.dim = 0;
    this.data = new Float32Array(0);
    this.ids = new Float64Array(0);
    this.tagSets = new Uint32Array(0);
    this.live = new Uint8Array(0);
    this.rows = 0;
    this.liveRows = 0;
    this.oldest = 0;
    this.rowOf.clear();
    this.rowsOfDocument.clear();
    this.lists = undefined;
  }

  private tagSetId(tags: string[]): number {
    const key = JSON.stringify([...tags].sort());
    let id = this.tagSetIds.get(key);
    if (id === undefined) {
      id = this.tagSetTags.length;
      this.tagSetIds.set(key, id);
      this.tagSetTags.push(tags);
    }
    return id;
  }

  private grow(rows: number): void {
    if (rows <= this.ids.length) return;
    const capacity = Math.max(1024, this.ids.length * 2, rows);
    const data = new Float32Array(capacity * this.dim);
    data.set(this.data.subarray(0, this.rows * this.dim));
    const ids = new Float64Array(capacity);
    ids.set(this.ids.subarray(0, this.rows));
    const tagSets = new Uint32Array(capacity);
    tagSets.set(this.tagSets.subarray(0, this.rows));
    const live = new Uint8Array(capacity);
    live.set(this.live.subarray(0, this.rows));
    Object.assign(this, { data, ids, tagSets, live });
  }

  /** Deleted rows are dropped once they are a quarter of the storage (row numbers change, so lists are rebuilt). */
  private maybeCompact(): void {
    if (this.building || this.rows < 1024 || this.rows - this.liveRows < this.rows / 4) return;
    let to = 0;
    this.rowOf.clear();
    const remap = new Int32Array(this.rows).fill(-1);
    for (let row = 0; row < this.rows; row++) {
      if (!this.live[row]) continue;
      if (to !== row) {
        this.data.copyWithin(to * this.dim, row * this.dim, (row + 1) * this.dim);
        this.ids[to] = this.ids[row];
        this.tagSets[to] = this.tagSets[row];
        this.live[to] = 1;
      }
      remap[row] = to;
      this.rowOf.set(this.ids[to], to);
      to++;
    }
    this.live.fill(0, to, this.rows);
    this.rows = to;
    this.oldest = 0;
    for (const [doc, rows] of this.rowsOfDocument) this.rowsOfDocument.set(doc, rows.map((r) => remap[r]).filter((r) => r >= 0));
    this.lists = undefined;
    this.maybeRebuild();
  }

  private nearestList(lists: Lists, source: Float32Array, at: number): number {
    const k = lists.members.length;
    let best = 0;
    let bestScore = -Infinity;
    for (let c = 0; c < k; c++) {
      const s = dot(lists.centroids, c * this.dim, source, at, this.dim);
      if (s > bestScore) {
        bestScore = s;
        best = c;
      }
    }
    return best;
  }

  /** Lists are (re)built when the index outgrows the exact scan and each time it has doubled since. */
  private maybeRebuild(): void {
    // The first load builds once, at its end.
    if (this.loadingNow || this.building || this.liveRows < EXACT_LIMIT || (this.lists && this.liveRows < this.lists.trainedOn * 2)) return;
    this.building = this.buildLists()
      .catch((error: Error) => this.logger.error(`Vector index build failed: ${error.message}`, error.stack))
      .finally(() => {
        this.building = undefined;
        // Rows kept coming during the build, or it had to give up: the next one starts now if due.
        this.maybeRebuild();
      });
  }

  /** Resolves when no list build is running (tests and benches wait for the index to settle). */
  async settled(): Promise<void> {
    while (this.building) await this.building;
  }

  /** How a search runs now: an exact scan, or through the inverted lists. */
  get mode(): 'exact' | 'lists' {
    return this.lists ? 'lists' : 'exact';
  }

  private async buildLists(): Promise<void> {
    const started = Date.now();
    const dim = this.dim;
    // A cleared index (new embedding model) abandons the build. Rows are append-only meanwhile, so the
    // sample may be read from the storage as it was when the build began.
    const generation = this.generation;
    const liveRows: number[] = [];
    for (let row = 0; row < this.rows; row++) if (this.live[row]) liveRows.push(row);
    const k = Math.min(1024, Math.max(16, Math.round(Math.sqrt(liveRows.length) / 2)));
    // A deterministic sample (every n-th live row) keeps builds reproducible.
    const step = Math.max(1, Math.floor(liveRows.length / (k * SAMPLE_PER_LIST)));
    const sample = liveRows.filter((_, i) => i % step === 0);
    const data = this.data;
    const centroids = new Float32Array(k * dim);
    for (let c = 0; c < k; c++) centroids.set(data.subarray(sample[Math.floor((c * sample.length) / k)] * dim, sample[Math.floor((c * sample.length) / k)] * dim + dim), c * dim);
    const draft: Lists = { centroids, members: Array.from({ length: k }, () => []), trainedOn: liveRows.length };
    let slice = performance.now();
    const pause = async () => {
      if (performance.now() - slice < SLICE_MS) return;
      await yieldToLoop();
      slice = performance.now();
    };
    for (let round = 0; round < TRAIN_ROUNDS; round++) {
      const sums = new Float64Array(k * dim);
      const counts = new Uint32Array(k);
      for (const row of sample) {
        if (this.generation !== generation) return;
        const c = this.nearestList(draft, data, row * dim);
        counts[c]++;
        for (let i = 0; i < dim; i++) sums[c * dim + i] += data[row * dim + i];
        await pause();
      }
      for (let c = 0; c < k; c++) {
        if (!counts[c]) continue;
        let norm = 0;
        for (let i = 0; i < dim; i++) norm += sums[c * dim + i] * sums[c * dim + i];
        const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
        for (let i = 0; i < dim; i++) centroids[c * dim + i] = sums[c * dim + i] * scale;
      }
    }
    // Every live row, those added during training included (the loop bound follows appends; compaction waits for the build).
    for (let row = 0; row < this.rows; row++) {
      if (this.generation !== generation) return;
      if (this.live[row]) draft.members[this.nearestList(draft, this.data, row * dim)].push(row);
      await pause();
    }
    if (this.generation !== generation) return;
    this.lists = draft;
    this.logger.log(`Vector index: ${k} lists over ${liveRows.length} vectors built in ${Date.now() - started} ms`);
  }

  /**
   * The `count` nearest live chunk ids with their cosine similarity, within documents carrying one of
   * `tags` (any document when absent).
   */
  nearest(query: number[], tags: string[] | undefined, count: number): { id: number; score: number }[] {
    if (!this.liveRows || query.length !== this.dim || count < 1) return [];
    const q = new Float32Array(this.dim);
    if (!normalise(query, q, 0, this.dim)) return [];
    const allowed = tags?.length ? new Uint8Array(this.tagSetTags.length) : undefined;
    if (allowed) this.tagSetTags.forEach((set, i) => (allowed[i] = set.some((t) => tags!.includes(t)) ? 1 : 0));
    const top = new TopK(count);
    const consider = (row: number) => {
      if (!this.live[row] || (allowed && !allowed[this.tagSets[row]])) return;
      top.push(dot(this.data, row * this.dim, q, 0, this.dim), row);
    };
    const lists = this.lists;
    if (!lists) {
      for (let row = 0; row < this.rows; row++) consider(row);
    } else {
      const k = lists.members.length;
      const order = new TopK(k);
      for (let c = 0; c < k; c++) order.push(dot(lists.centroids, c * this.dim, q, 0, this.dim), c);
      // Probe the nearest lists; a narrow tag filter widens the probe until enough rows qualify.
      let probe = Math.max(1, Math.ceil(k * PROBE_SHARE));
      let done = 0;
      while (done < k) {
        for (; done < Math.min(k, probe); done++) for (const row of lists.members[order.rows[done]]) consider(row);
        if (top.size >= count) break;
        probe *= 4;
      }
    }
    const out: { id: number; score: number }[] = [];
    for (let i = 0; i < top.size; i++) out.push({ id: this.ids[top.rows[i]], score: top.scores[i] });
    return out;
  }

  /** Cosine similarity between the query and one indexed chunk, or undefined when the chunk is not held. */
  similarity(query: number[], chunkId: number): number | undefined {
    const row = this.rowOf.get(chunkId);
    if (row === undefined || query.length !== this.dim) return undefined;
    const q = new Float32Array(this.dim);
    if (!normalise(query, q, 0, this.dim)) return 0;
    return dot(this.data, row * this.dim, q, 0, this.dim);
  }
}
