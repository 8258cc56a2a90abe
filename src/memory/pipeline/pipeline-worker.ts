import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Subscription } from 'rxjs';
import { EventBus } from '../../events/event-bus.service';
import { Metrics } from '../../observability/metrics.service';
import { GuardedFetchError, guardedGet } from '../../common/guarded-fetch';
import { KEEL_SETTINGS } from '../../common/settings';
import type { KeelSettings } from '../../common/settings';
import { INGESTION_SETTINGS } from '../ingestion-settings';
import type { IngestionSettings } from '../ingestion-settings';
import { MemoriesService } from '../memories/memories.service';
import { FullTextIndex } from '../search/full-text-index';
import { OrganizationSettingsService } from '../settings/organization-settings.service';
import { IngestionStore, Query } from '../store';
import { chunkText } from './chunker';
import { EmbeddingProvider } from './embedding-provider';
import { checkTextLength, ExtractionError, looksLikeHtml, looksLikeJson, plainText } from './extraction';
import type { Extracted } from './extraction';
import { ExtractionInterrupted, ExtractionSandbox } from './extraction-sandbox';
import type { DocumentStatusEvent } from './dto/webhook.dto';
import { ClaimedDocument, PipelineDocument, PipelineQueueRepository } from './pipeline-queue.repository';
import { DOCUMENT_STATUS_EVENT, StatusPublisher } from './status-publisher';
import type { Metadata } from '../documents/memory-document.entity';

/** The revision changed under us (an append or a PATCH): drop this run, the document is queued again. */
class Superseded extends Error {}

const SUMMARY_LENGTH = 280;
/** How often a worker beats, and how long a silent one keeps its claims (PostgreSQL). */
const BEAT_MS = 2_000;
const STALE_MS = 6_000;
/** Rows of workers gone this long are deleted (their claims were handed back long before). */
const FORGET_WORKER_MS = 60 * 60_000;

const withoutNul = (text: string): string => (text.includes('\0') ? text.replace(/\0/g, '') : text);

/**
 * In-process workers over the document rows. A row is claimable when `lease_until` has passed:
 * queued rows carry their enqueue time, claimed rows a lease that each stage renews, finished rows
 * NULL. So a crash leaves rows whose lease simply runs out, and the next claim resumes them.
 *
 * On PostgreSQL, where replicas share the rows, a claim also names its worker (`claimed_by`), and
 * each process beats in `memory_worker` every BEAT_MS: the claims of a worker silent for STALE_MS
 * (killed, or cut off) are handed back at once instead of after the lease. Every write of a stage
 * checks that the claim is still this worker's, so a worker whose claims were taken over stops.
 * A claim handed back is due at TAKEN_OVER (the epoch, before every queued row): started work finishes
 * first instead of behind the whole queue (3,000 queued documents put it 2 minutes back).
 * The SQL of all this is PipelineQueueRepository's; the worker decides when it runs.
 */
@Injectable()
export class PipelineWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('IngestionPipeline');
  private readonly workerId = randomUUID();
  private beatTimer?: NodeJS.Timeout;
  private stopping = false;
  private slots: Promise<void>[] = [];
  private waiters: (() => void)[] = [];
  /** The break the last slot to finish a document waits for (see `nextTurn`). */
  private turn: Promise<void> = Promise.resolve();
  private subscription?: Subscription;
  private pollTimer?: NodeJS.Timeout;

  constructor(
    private readonly store: IngestionStore,
    private readonly queue: PipelineQueueRepository,
    private readonly index: FullTextIndex,
    private readonly memories: MemoriesService,
    private readonly publisher: StatusPublisher,
    private readonly embeddings: EmbeddingProvider,
    private readonly events: EventBus,
    private readonly organization: OrganizationSettingsService,
    @Inject(INGESTION_SETTINGS) private readonly settings: IngestionSettings,
    @Inject(KEEL_SETTINGS) private readonly keel: KeelSettings,
    private readonly metrics: Metrics,
    private readonly sandbox: ExtractionSandbox,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.metrics.sample('keel_pipeline_queue_depth', 'Documents not yet done or failed (all replicas)', () => this.queue.depth());
    this.metrics.sample('keel_pipeline_dream_backlog', 'Documents done whose memories are still to be extracted (all replicas)', () => this.queue.dreamBacklog());
    if (this.store.dialect === 'sqlite') {
      // One process owns a SQLite file: every lease still held belongs to a previous run of it.
      await this.queue.endPreviousRun(Date.now());
    }
    this.subscription = this.events.ofType<DocumentStatusEvent>(DOCUMENT_STATUS_EVENT).subscribe((e) => {
      if (e.payload.properties.status === 'queued') this.wake();
    });
    // Rows another replica let lapse, and dynamic dreams coming due, are found by polling.
    this.pollTimer = setInterval(() => this.wake(), 1000).unref();
    if (this.store.dialect === 'postgres') {
      await this.beat();
      this.beatTimer = setInterval(() => void this.beat(), BEAT_MS).unref();
    }
    this.slots = Array.from({ length: this.settings.concurrency }, () => this.runSlot());
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    // An extraction may run for a minute: it is killed, and its document handed back untouched.
    this.sandbox.stop();
    this.subscription?.unsubscribe();
    clearInterval(this.pollTimer);
    clearInterval(this.beatTimer);
    this.wake();
    await Promise.all(this.slots);
    if (this.beatTimer) await this.queue.removeWorker(this.workerId).catch(() => undefined);
  }

  /** Says this worker is alive, and hands back the claims of workers that stopped beating. */
  private async beat(): Promise<void> {
    const now = Date.now();
    try {
      await this.queue.beat(this.workerId, now);
      const released = await this.queue.takeOverSilentWorkers(now - STALE_MS);
      if (released > 0) {
        this.logger.warn({ msg: 'took over the claims of a pipeline worker that stopped', documents: released });
        this.wake();
      }
      await this.queue.forgetWorkers(now - FORGET_WORKER_MS);
    } catch (error) {
      if (!this.stopping) this.logger.warn({ msg: 'pipeline worker beat failed', error: (error as Error).message });
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private async runSlot(): Promise<void> {
    while (!this.stopping) {
      let claim: ClaimedDocument | undefined;
      try {
        claim = await this.queue.claimNext(this.workerId, this.settings.leaseMs);
      } catch (error) {
        if (this.stopping) return;
        this.logger.error({ msg: 'claim failed', error: (error as Error).message });
      }
      if (!claim) {
        if (!this.stopping) await new Promise<void>((resolve) => this.waiters.push(resolve));
        continue;
      }
      await this.process(claim);
      await this.nextTurn();
    }
  }

  /**
   * A break of one turn of the event loop after each document, one slot per turn: better-sqlite3 answers
   * synchronously, so a document's stages run without yielding, and the slots' breaks ending in the same
   * turn would hold requests for as many documents (a search during an import waited for four).
   * Work that truly waits (an extraction process, an embedding request) still overlaps between slots.
   */
  private nextTurn(): Promise<void> {
    const turn = this.turn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    this.turn = turn;
    return turn;
  }

  private lease(): number {
    return Date.now() + this.settings.leaseMs;
  }

  /**
   * Persist one transition of the claimed revision and publish it once committed; throws Superseded when
   * the row moved on or the claim is no longer this worker's. Without `lease_until` in `extra` the lease
   * is renewed. In `q`'s transaction when given: the previous stage's output commits with it, and the row
   * stays locked (the check `assertCurrent` makes) for the rest of that transaction.
   */
  private async transition(claim: ClaimedDocument, status: string, extra: Record<string, unknown> = {}, dreamingStatus?: string, q?: Query): Promise<void> {
    const row = await this.queue.writeStage(claim, this.workerId, { status, columns: extra, dreamingStatus, renewedLease: this.lease() }, q);
    if (!row) throw new Superseded();
    const publish = () =>
      this.publisher.publish({ id: claim.id, orgId: claim.org_id, customId: row.custom_id, status, dreamingStatus: row.dreaming_status, error: extra.error as string | undefined });
    if (q) this.store.afterCommit(q, publish);
    else publish();
  }

  /** Inside a write: the claimed revision must still be current (not deleted, appended to or replaced) and still this worker's. */
  private async assertCurrent(q: Query, claim: ClaimedDocument): Promise<void> {
    if (!(await this.queue.lockIfCurrent(q, claim, this.workerId))) throw new Superseded();
  }

  private async load(claim: ClaimedDocument): Promise<PipelineDocument> {
    const row = await this.queue.loadRevision(claim);
    if (!row) throw new Superseded();
    return row;
  }

  private async process(claim: ClaimedDocument): Promise<void> {
    let interrupted = false;
    try {
      if (claim.status !== 'done') {
        this.publisher.publish({ id: claim.id, orgId: claim.org_id, customId: null, status: 'extracting', dreamingStatus: 'dreaming' });
        const { maxAttempts } = this.settings.extraction;
        if (claim.extract_attempts > maxAttempts) {
          throw new ExtractionError(`Extraction did not finish in ${maxAttempts} attempts (the server stopped during each); not tried again (KEEL_EXTRACT_MAX_ATTEMPTS)`);
        }
        await this.runPipeline(claim);
      } else await this.dream(claim);
    } catch (error) {
      interrupted = error instanceof ExtractionInterrupted;
      if (error instanceof Superseded || this.stopping) return;
      const message = error instanceof ExtractionError ? error.message : `Processing failed: ${(error as Error).message}`;
      if (!(error instanceof ExtractionError)) this.logger.error({ msg: 'document failed', id: claim.id, error: (error as Error).stack });
      await this.transition(claim, 'failed', { error: message, lease_until: null, claimed_by: null }, 'done').catch(() => undefined);
      this.metrics.documentsProcessed.inc({ outcome: 'failed' });
    } finally {
      // Stopped at a safe point between stages: hand the row back so the next start (or replica) resumes it at once.
      // An extraction the stop killed is not held against the document: its attempt is given back.
      if (this.stopping) await this.queue.handBack(claim, this.workerId, Date.now(), interrupted).catch(() => undefined);
    }
  }

  /** The name `includeItems`/`excludeItems` patterns apply to: an upload's file name or a URL's path (`/docs/a.md`); other documents have none. */
  private async itemName(doc: PipelineDocument): Promise<string | undefined> {
    if (doc.source === 'file') return this.queue.uploadedFileName(doc.id);
    if (doc.source !== 'url') return undefined;
    try {
      return decodeURIComponent(new URL(doc.content ?? '').pathname);
    } catch {
      return undefined;
    }
  }

  /** The document's text: whatever needs a parser is read in the extraction sandbox, never in the server. */
  private async extract(doc: PipelineDocument): Promise<Extracted & { url?: string }> {
    if (doc.source === 'url') return this.extractPage(doc.content ?? '');
    if (doc.source === 'file') {
      const file = await this.queue.uploadedFile(doc.id);
      if (!file) throw new ExtractionError('The uploaded file is missing');
      return this.sandbox.extract({ source: 'file', data: file.data, name: file.name, mime: file.mimeType, fileType: file.fileType });
    }
    const content = doc.content ?? '';
    if (doc.source === 'text' && (looksLikeHtml(content) || looksLikeJson(content))) return this.sandbox.extract({ source: 'text', content });
    // Plain text and markdown, and conversations (text Keel rendered itself), need no parser: only the
    // output bound applies. Sending them to the extraction process cost a third of the pipeline's throughput.
    checkTextLength(content, this.settings.extraction);
    return doc.source === 'conversation' ? { text: content, type: 'text' } : plainText(content);
  }

  /** Fetch a URL with size, time and redirect caps and no private addresses, then read what came back. */
  private async extractPage(address: string): Promise<Extracted & { url: string }> {
    const limits = { maxBytes: this.settings.fetchMaxBytes, timeoutMs: this.settings.fetchTimeoutMs, maxRedirects: this.settings.fetchMaxRedirects, allowPrivate: this.keel.allowPrivateFetch };
    const { url, response, body } = await guardedGet(address, limits, 'text/html,application/pdf,text/*,*/*;q=0.5').catch((error: unknown) => {
      throw error instanceof GuardedFetchError ? new ExtractionError(error.message) : error;
    });
    const status = response.statusCode ?? 0;
    if (status >= 400) throw new ExtractionError(`Fetching ${url.href} answered HTTP ${status}`);
    const extracted = await this.sandbox.extract({
      source: 'page',
      data: body,
      name: url.pathname.split('/').pop() || null,
      mime: String(response.headers['content-type'] ?? '').split(';')[0].trim() || null,
    });
    return { ...extracted, title: extracted.title ?? url.href, url: url.href };
  }

  private async runPipeline(claim: ClaimedDocument): Promise<void> {
    const doc = await this.load(claim);
    const rules = await this.organization.ingestionRules(claim.org_id);
    const name = await this.itemName(doc);
    const refusal = name === undefined ? undefined : rules.refusal(name);
    if (refusal) throw new ExtractionError(`Not ingested: ${refusal}`);
    const extracted = await this.extract(doc);
    // Files and fetched pages may carry NUL bytes (binary debris, UTF-16 read as UTF-8). They are not
    // text, and PostgreSQL cannot store them: dropped here, where the client typed nothing (its own
    // fields with a NUL are refused with a 400).
    const text = withoutNul(extracted.text).trim();
    if (!text) throw new ExtractionError('No text could be extracted from the content');
    const summary = text.replace(/\s+/g, ' ').slice(0, SUMMARY_LENGTH);
    const extractedColumns = {
      text_content: text,
      title: doc.title ?? (extracted.title === undefined ? undefined : withoutNul(extracted.title)) ?? summary.split(/(?<=[.!?])\s/)[0].slice(0, 120),
      summary,
      type: extracted.type,
      ...(extracted.url ? { url: extracted.url } : {}),
      ...(doc.source === 'file' ? { content: text } : {}),
    };
    // Stopped during the extraction: nothing of it is kept (a resumed claim extracts again anyway).
    if (this.stopping) return;
    const chunks = chunkText(text, rules.chunking);
    const now = Date.now();
    const superrag = doc.task_type === 'superrag';
    const instant = doc.dreaming === 'instant';
    // Dynamic dreaming groups a customId's or conversation's updates: it waits for them to settle.
    const grouped = !instant && (doc.custom_id !== null || doc.source === 'conversation');
    // An instant dream goes on under this claim; otherwise the row is handed back until its dream is due.
    const dreamsNow = instant && !superrag;
    const finish = async (q: Query) => {
      const dreamAt = superrag ? null : instant ? this.lease() : Date.now() + (grouped ? this.settings.dynamicDreamDelayMs : 0);
      await this.transition(claim, 'done', { lease_until: dreamAt, claimed_by: dreamsNow ? this.workerId : null }, superrag ? 'done' : 'dreaming', q);
      await this.index.indexChunks(q, claim.id);
    };
    // Each stage's output commits with the next stage's status. Chunking takes no wait, so the
    // extracted text, its chunks and the statuses `chunking` and `embedding` commit together; without
    // an embedding model nothing happens between the chunks and their index rows either, so `indexing`
    // and `done` join them: one commit a document after its claim (each status still published, in order). A commit
    // each cost 0.26 ms of a SQLite document's 1.6 ms (docs/performance.md, stop 43).
    const embeds = this.embeddings.configured;
    await this.store.transaction(async (q) => {
      await this.transition(claim, 'chunking', extractedColumns, undefined, q);
      await this.transition(claim, 'embedding', {}, undefined, q);
      await this.index.deleteChunks(q, claim.id);
      await this.queue.insertChunks(q, claim.id, chunks, now);
      if (!embeds) {
        await this.transition(claim, 'indexing', {}, undefined, q);
        await finish(q);
      }
    }, { relaxed: true });
    if (embeds) {
      await this.embedChunks(claim);
      if (this.stopping) return;
      await this.store.transaction(finish, { relaxed: true });
    }
    this.metrics.documentsProcessed.inc({ outcome: 'done' });
    if (dreamsNow && !this.stopping) await this.dream({ ...claim, status: 'done' });
  }

  /** Vectors for every chunk of the document (stored as JSON; search compares them in process), then `indexing`. */
  private async embedChunks(claim: ClaimedDocument): Promise<void> {
    const chunks = await this.queue.chunksToEmbed(claim.id);
    const vectors = await this.embeddings.embed(chunks.map((c) => c.content));
    await this.store.transaction(async (q) => {
      await this.transition(claim, 'indexing', {}, undefined, q);
      await this.queue.saveEmbeddings(q, chunks, vectors);
    }, { relaxed: true });
  }

  private async dream(claim: ClaimedDocument): Promise<void> {
    const doc = await this.load(claim);
    const text = doc.text_content ?? '';
    const fresh = text.slice(Math.min(doc.dreamed_length, text.length));
    const tag = doc.container_tag ?? 'sm_project_default';
    const parse = (v: string | null) => (v ? (JSON.parse(v) as Metadata) : undefined);
    const { filterPrompt } = await this.organization.ingestionRules(claim.org_id);
    const extraction = await this.memories.factsOf(fresh, { org: claim.org_id, conversation: doc.source === 'conversation', tag, documentId: doc.id, filterByMetadata: parse(doc.filter_by_metadata), filterPrompt });
    await this.store.transaction(async (q) => {
      await this.assertCurrent(q, claim);
      await this.memories.remember(q, claim.org_id, tag, extraction.facts, { documentId: doc.id, metadata: parse(doc.metadata), filterByMetadata: parse(doc.filter_by_metadata) });
      await this.queue.finishDream(q, claim.id, text.length, Date.now());
    }, { relaxed: true });
    this.publisher.publish({ id: claim.id, orgId: claim.org_id, customId: doc.custom_id, status: 'done', dreamingStatus: 'done', memoryExtractor: extraction.extractor, extractionFallback: extraction.fallbackReason });
  }
}
