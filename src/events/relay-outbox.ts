/** A message waiting to be sent: its seq, its inline form, and the streaming part it updates. */
export interface OutboxEntry {
  seq: number;
  inline: string;
  partID?: string;
}

export interface OutboxLimits {
  /** Bytes of messages waiting before new ones are refused (a stalled database must not grow memory). */
  maxPendingBytes: number;
  /** Messages sent per NOTIFY statement. */
  batchMessages: number;
  /** A batch stops once it holds this many bytes. */
  batchBytes: number;
}

export const OUTBOX_LIMITS: OutboxLimits = {
  maxPendingBytes: 32 * 1024 * 1024,
  batchMessages: 500,
  batchBytes: 512 * 1024,
};

/** The messages waiting to be relayed, in seq order, bounded in bytes and taken in batches. */
export class RelayOutbox {
  private readonly waiting: OutboxEntry[] = [];
  private pendingBytes = 0;

  constructor(private readonly limits: OutboxLimits = OUTBOX_LIMITS) {}

  get size(): number {
    return this.waiting.length;
  }

  /** Queues the entry unless the backlog would pass `maxPendingBytes`; false when refused. */
  offer(entry: OutboxEntry): boolean {
    if (this.pendingBytes + entry.inline.length > this.limits.maxPendingBytes) return false;
    this.pendingBytes += entry.inline.length;
    this.waiting.push(entry);
    return true;
  }

  /** The oldest entries to send together: at most `batchMessages`, adding while under `batchBytes`. */
  nextBatch(): OutboxEntry[] {
    let bytes = 0;
    let count = 0;
    while (count < this.waiting.length && count < this.limits.batchMessages && bytes < this.limits.batchBytes)
      bytes += this.waiting[count++].inline.length;
    return this.waiting.slice(0, count);
  }

  /** Removes a batch taken by `nextBatch` (sent, or given up on). */
  remove(batch: OutboxEntry[]): void {
    this.waiting.splice(0, batch.length);
    for (const { inline } of batch) this.pendingBytes -= inline.length;
  }
}

export interface HistoryLimits {
  bytes: number;
  ms: number;
}

export const HISTORY_LIMITS: HistoryLimits = { bytes: 16 * 1024 * 1024, ms: 60_000 };

/** Messages sent (as sent: inline, or the `ref` to their row), kept for replicas that missed them; bounded in bytes and age. */
export class SentHistory {
  /** In seq order; entries before `head` are forgotten (dropped in bulk: `shift()` copies a large array every time). */
  private sent: { seq: number; payload: string; at: number }[] = [];
  private head = 0;
  private bytes = 0;

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly limits: HistoryLimits = HISTORY_LIMITS,
  ) {}

  /** Keeps a sent message, forgetting the oldest past the bounds. */
  keep(seq: number, payload: string): void {
    const now = this.clock();
    this.sent.push({ seq, payload, at: now });
    this.bytes += payload.length;
    while (this.head < this.sent.length && (this.bytes > this.limits.bytes || now - this.sent[this.head].at > this.limits.ms))
      this.bytes -= this.sent[this.head++].payload.length;
    if (this.head > 1024 && this.head * 2 > this.sent.length) {
      this.sent = this.sent.slice(this.head);
      this.head = 0;
    }
  }

  /** The kept messages after `seq`, in order, in batches of at most `batchSize`. */
  after(seq: number, batchSize: number): string[][] {
    const payloads: string[] = [];
    for (let i = this.head; i < this.sent.length; i++) if (this.sent[i].seq > seq) payloads.push(this.sent[i].payload);
    const batches: string[][] = [];
    for (let i = 0; i < payloads.length; i += batchSize) batches.push(payloads.slice(i, i + batchSize));
    return batches;
  }
}
