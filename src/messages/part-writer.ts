import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { Part } from './message.entity';
import { MessageRepository, PartRow } from './message.repository';

/** How long a streamed part may stay only in memory (its events are published at once regardless). */
const DELTA_FLUSH_MS = 50;
const ROWS_PER_STATEMENT = 200;
const FORGOTTEN_SESSIONS_LIMIT = 1_000;

/**
 * Writes part rows. A streamed update (one per delta, thousands per turn) only replaces the part's
 * pending version (the object, serialised when flushed: a text part's JSON grows with every delta,
 * so stringifying each one would cost O(n²) per reply); pending parts are upserted together every
 * DELTA_FLUSH_MS in one statement, so the database sees one commit per interval instead of one per
 * token (PostgreSQL commits cost ~2 ms). Any other write, read or removal first settles what is
 * pending, so readers never see stale rows and a late flush never overwrites a newer write.
 *
 * Durability: the final state of a part (sent without `delta`) is written before `write` returns.
 * A crash mid-stream loses at most the last DELTA_FLUSH_MS of deltas of parts still streaming.
 * Callers hand over their object: it must not be mutated after `defer` (the stream processor
 * passes a fresh copy per update).
 */
@Injectable()
export class PartWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('PartWriter');
  private readonly pending = new Map<string, Part>();
  private readonly inFlight = new Set<string>();
  /** Sessions deleted meanwhile: their pending rows must not come back. */
  private readonly forgotten = new Set<string>();
  private flushing: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;

  constructor(private readonly repository: MessageRepository) {}

  /** Streamed update: kept in memory, written within DELTA_FLUSH_MS. */
  defer(part: Part): void {
    this.pending.set(part.id, part);
    this.timer ??= setTimeout(() => void this.flush(), DELTA_FLUSH_MS);
  }

  /** Durable update: written now, after any earlier pending version of the same part. */
  async write(part: Part): Promise<void> {
    this.pending.delete(part.id);
    if (this.inFlight.has(part.id)) await this.flushing;
    await this.repository.upsertParts([this.toRow(part)]);
  }

  /** Write everything pending and wait for it (before reads and removals). */
  settle(): Promise<void> {
    if (this.pending.size > 0) return this.flush();
    return this.inFlight.size > 0 ? this.flushing : Promise.resolve();
  }

  /** Drop what is pending for deleted sessions. */
  forget(sessionIDs: string[]): void {
    if (this.forgotten.size > FORGOTTEN_SESSIONS_LIMIT) this.forgotten.clear();
    for (const id of sessionIDs) this.forgotten.add(id);
    for (const [id, part] of this.pending) if (this.forgotten.has(part.sessionID)) this.pending.delete(id);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.settle();
  }

  private flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    // Chained, and the batch is taken when the previous one is done: flushes never overtake each other.
    this.flushing = this.flushing.then(async () => {
      const batch = [...this.pending.values()].filter((part) => !this.forgotten.has(part.sessionID)).map((part) => this.toRow(part));
      this.pending.clear();
      for (const row of batch) this.inFlight.add(row.id);
      try {
        for (let i = 0; i < batch.length; i += ROWS_PER_STATEMENT) await this.repository.upsertParts(batch.slice(i, i + ROWS_PER_STATEMENT));
      } catch (error) {
        this.logger.error({ msg: 'streamed part flush failed', parts: batch.length, error: String(error) });
      } finally {
        this.inFlight.clear();
      }
    });
    return this.flushing;
  }

  private toRow(part: Part): PartRow {
    return { id: part.id, sessionID: part.sessionID, messageID: part.messageID, data: JSON.stringify(part) };
  }
}
