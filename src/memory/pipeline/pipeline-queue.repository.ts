import { Injectable } from '@nestjs/common';
import { UNFINISHED } from '../documents/memory-document.entity';
import type { DocumentFile } from '../documents/document.repository';
import type { MemoryChunk } from '../documents/memory-chunk.entity';
import { IngestionStore, Query, slices } from '../store';
import type { TextChunk } from './chunker';

/** A document row a worker holds: the revision it claimed, and what the claim changed. */
export interface ClaimedDocument {
  id: string;
  /** The document's organization: its settings apply, its memories are written under it. */
  org_id: string;
  revision: number;
  status: string;
  /** Extractions of this revision started so far, this one included (counted by the claim itself). */
  extract_attempts: number;
}

/** Which claim a write is made under: the document and the revision that was claimed. */
type ClaimedRevision = Pick<ClaimedDocument, 'id' | 'revision'>;

/** The columns of a claimed revision that the pipeline's stages and dreaming read. */
export interface PipelineDocument {
  id: string;
  custom_id: string | null;
  content: string | null;
  text_content: string | null;
  source: string;
  title: string | null;
  task_type: string;
  dreaming: string;
  container_tag: string | null;
  metadata: string | null;
  filter_by_metadata: string | null;
  dreamed_length: number;
}

/** What one stage of the pipeline writes to its document row. */
interface StageWrite {
  status: string;
  /** Further columns to set (a failure's `error`, the extracted text, a dream's `lease_until`, …). */
  columns: Record<string, unknown>;
  dreamingStatus?: string;
  /** The renewed lease, written unless `columns` sets `lease_until` itself. */
  renewedLease: number;
}

/** What a stage's write answers, for the status event. */
interface StageWritten {
  custom_id: string | null;
  dreaming_status: string;
}

type ChunkToEmbed = Pick<MemoryChunk, 'id' | 'content'>;

/** `lease_until` of a claim handed back: the epoch, so it sorts before every queued row. */
const TAKEN_OVER = 0;
/**
 * Claims, stage writes and take-overs may be lost in a crash without harm (the lease expires and the
 * idempotent stages run again), so PostgreSQL need not flush WAL at each commit.
 */
const RELAXED = { relaxed: true };

/**
 * The SQL of the pipeline's queue: documents claimed, leased and handed back through `lease_until`
 * and `claimed_by`, the rows each stage writes (`memory_document`, `memory_chunk`), the uploads it
 * reads (`memory_document_file`), and the workers' heartbeats (`memory_worker`). When work is done
 * and by whom is PipelineWorker's business.
 */
@Injectable()
export class PipelineQueueRepository {
  constructor(private readonly store: IngestionStore) {}

  /** Documents not yet done or failed, all replicas' and organizations'. */
  async depth(): Promise<number> {
    const [{ n }] = await this.store.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM memory_document WHERE ${UNFINISHED}`);
    return Number(n);
  }

  /** Documents done whose memories are still to be extracted (their dream due or under way), all replicas' and organizations'. */
  async dreamBacklog(): Promise<number> {
    // A range on the lease (every due or held lease is at or after TAKEN_OVER) reads only rows with work pending:
    // SQLite, without statistics, would walk the whole table for `IS NOT NULL`.
    const [{ n }] = await this.store.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM memory_document WHERE lease_until >= ? AND status = 'done'`, [TAKEN_OVER]);
    return Number(n);
  }

  /**
   * Hands back every lease still held, for when they all belong to a previous run of this process:
   * queued rows become due at `now`, claimed ones at TAKEN_OVER (their started work goes first).
   */
  async endPreviousRun(now: number): Promise<void> {
    await this.store.transaction((q) =>
      q('UPDATE memory_document SET lease_until = CASE WHEN claimed_by IS NULL THEN ? ELSE ? END, claimed_by = NULL WHERE lease_until > ? RETURNING id', [now, TAKEN_OVER, now]),
    );
  }

  /** Says the worker is alive at `now`. */
  async beat(workerId: string, now: number): Promise<void> {
    await this.store.query('INSERT INTO memory_worker (id, beat_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET beat_at = EXCLUDED.beat_at', [workerId, now]);
  }

  /** Hands back (due at TAKEN_OVER) the claims of every worker that has not beaten since `silentSince`; answers how many documents. */
  async takeOverSilentWorkers(silentSince: number): Promise<number> {
    const released = await this.store.transaction(
      (q) =>
        q(
          `UPDATE memory_document SET lease_until = ?, claimed_by = NULL
           WHERE claimed_by IS NOT NULL AND claimed_by NOT IN (SELECT id FROM memory_worker WHERE beat_at > ?) RETURNING id`,
          [TAKEN_OVER, silentSince],
        ),
      RELAXED,
    );
    return released.length;
  }

  /** Deletes the rows of workers that have not beaten since `goneSince`. */
  async forgetWorkers(goneSince: number): Promise<void> {
    await this.store.query('DELETE FROM memory_worker WHERE beat_at < ?', [goneSince]);
  }

  /** A worker that stops says so, instead of leaving its row to go stale. */
  async removeWorker(workerId: string): Promise<void> {
    await this.store.query('DELETE FROM memory_worker WHERE id = ?', [workerId]);
  }

  /**
   * Atomically takes the oldest claimable row for the worker, leased for `leaseMs` (PostgreSQL: SKIP
   * LOCKED, so replicas never share one).
   */
  async claimNext(workerId: string, leaseMs: number): Promise<ClaimedDocument | undefined> {
    const now = Date.now();
    const skip = this.store.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    // A claim of an unfinished document starts its extraction: counted and committed here, before it
    // starts, so an extraction that kills the process (or that it dies during) still counts.
    const rows = await this.store.transaction(
      (q) =>
        q<ClaimedDocument>(
          `UPDATE memory_document SET status = CASE WHEN status = 'done' THEN 'done' ELSE 'extracting' END, lease_until = ?, claimed_by = ?, error = NULL,
             extract_attempts = CASE WHEN status = 'done' THEN extract_attempts ELSE extract_attempts + 1 END
           WHERE id = (SELECT id FROM memory_document WHERE lease_until IS NOT NULL AND lease_until <= ? ORDER BY lease_until LIMIT 1${skip})
           AND lease_until IS NOT NULL AND lease_until <= ?
           RETURNING id, org_id, revision, status, extract_attempts`,
          [Date.now() + leaseMs, workerId, now, now],
        ),
      RELAXED,
    );
    return rows[0];
  }

  /**
   * Writes one stage of the claimed revision, stamped `updated_at`; undefined when the row moved on
   * (deleted, appended to or replaced) or the claim is no longer the worker's. In `q`'s transaction
   * when given (the row then stays locked until it ends), else in its own.
   */
  async writeStage(claim: ClaimedRevision, workerId: string, stage: StageWrite, q?: Query): Promise<StageWritten | undefined> {
    const columns: Record<string, unknown> = { status: stage.status, updated_at: Date.now(), ...stage.columns };
    if (stage.dreamingStatus) columns.dreaming_status = stage.dreamingStatus;
    if (!('lease_until' in stage.columns)) columns.lease_until = stage.renewedLease;
    const sets = Object.keys(columns).map((column) => `${column} = ?`);
    const write = (tx: Query) =>
      tx<StageWritten>(
        `UPDATE memory_document SET ${sets.join(', ')} WHERE id = ? AND revision = ? AND claimed_by = ? RETURNING custom_id, dreaming_status`,
        [...Object.values(columns), claim.id, claim.revision, workerId],
      );
    const [row] = await (q ? write(q) : this.store.transaction(write, RELAXED));
    return row;
  }

  /**
   * Inside a write: whether the claimed revision is still current (not deleted, appended to or
   * replaced) and still the worker's, its row then locked for the rest of the transaction.
   */
  async lockIfCurrent(q: Query, claim: ClaimedRevision, workerId: string): Promise<boolean> {
    const [current] = await q<{ id: string }>(`SELECT id FROM memory_document WHERE id = ? AND revision = ? AND claimed_by = ?${this.store.forUpdate}`, [claim.id, claim.revision, workerId]);
    return current !== undefined;
  }

  /** The claimed revision's row (undefined once the document was deleted or given a new revision). */
  async loadRevision(claim: ClaimedRevision): Promise<PipelineDocument | undefined> {
    const [row] = await this.store.query<PipelineDocument>(
      'SELECT id, custom_id, content, text_content, source, title, task_type, dreaming, container_tag, metadata, filter_by_metadata, dreamed_length FROM memory_document WHERE id = ? AND revision = ?',
      [claim.id, claim.revision],
    );
    return row;
  }

  /**
   * Gives a claim up, the row due again at `dueAt`; `refundAttempt` gives back the extraction attempt
   * its claim counted. Nothing happens when the claim is no longer the worker's.
   */
  async handBack(claim: ClaimedRevision, workerId: string, dueAt: number, refundAttempt: boolean): Promise<void> {
    const refund = refundAttempt ? ', extract_attempts = extract_attempts - 1' : '';
    await this.store.transaction((q) =>
      q(`UPDATE memory_document SET lease_until = ?, claimed_by = NULL${refund} WHERE id = ? AND revision = ? AND claimed_by = ? RETURNING id`, [dueAt, claim.id, claim.revision, workerId]),
    );
  }

  /** The name an upload was given, if any. */
  async uploadedFileName(documentId: string): Promise<string | undefined> {
    const [file] = await this.store.query<{ file_name: string | null }>('SELECT file_name FROM memory_document_file WHERE document_id = ?', [documentId]);
    return file?.file_name ?? undefined;
  }

  /** The uploaded file, decoded (undefined when it is missing). */
  async uploadedFile(documentId: string): Promise<DocumentFile | undefined> {
    const [file] = await this.store.query<{ data: string; file_name: string | null; mime_type: string | null; file_type: string | null }>(
      'SELECT data, file_name, mime_type, file_type FROM memory_document_file WHERE document_id = ?',
      [documentId],
    );
    return file && { data: Buffer.from(file.data, 'base64'), name: file.file_name, mimeType: file.mime_type, fileType: file.file_type };
  }

  /** Stores a document's chunks, one statement per 100. */
  async insertChunks(q: Query, documentId: string, chunks: TextChunk[], now: number): Promise<void> {
    for (const slice of slices(chunks, 100)) {
      await q(
        `INSERT INTO memory_chunk (document_id, position, content, start_offset, end_offset, created_at) VALUES ${slice.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
        slice.flatMap((c) => [documentId, c.position, c.content, c.start, c.end, now]),
      );
    }
  }

  /** A document's chunks in order, to be embedded. */
  chunksToEmbed(documentId: string): Promise<ChunkToEmbed[]> {
    return this.store.query<ChunkToEmbed>('SELECT id, content FROM memory_chunk WHERE document_id = ? ORDER BY position', [documentId]);
  }

  /** Each chunk's vector, the i-th for the i-th chunk (stored as JSON; search compares them in process). */
  async saveEmbeddings(q: Query, chunks: Pick<ChunkToEmbed, 'id'>[], vectors: number[][]): Promise<void> {
    for (let i = 0; i < chunks.length; i++) await q('UPDATE memory_chunk SET embedding = ? WHERE id = ? RETURNING id', [JSON.stringify(vectors[i]), chunks[i].id]);
  }

  /** The document's text up to `dreamedLength` has been dreamed: its dream is done and its claim released. */
  async finishDream(q: Query, documentId: string, dreamedLength: number, now: number): Promise<void> {
    await q('UPDATE memory_document SET dreamed_length = ?, dreaming_status = ?, lease_until = NULL, claimed_by = NULL, updated_at = ? WHERE id = ? RETURNING id', [dreamedLength, 'done', now, documentId]);
  }
}
