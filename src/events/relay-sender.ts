import type { Logger } from '@nestjs/common';
import type { GlobalEnvelope } from './event-bus.service';
import { envelopeJsonOf } from './event-frames';
import { RelayOutbox, SentHistory } from './relay-outbox';
import {
  BATCH_MESSAGES,
  MAX_STREAMING_PARTS,
  isConnectionError,
  isPartUpdate,
  originPrefix,
  remember,
  streaming,
} from './relay-message';
import type { RelayLink, RelayMessage } from './relay-message';

/** NOTIFY payloads must stay under 8000 bytes; larger events go through `relayed_event`. */
const INLINE_LIMIT = 7000;
/** How often a streaming part travels whole, so a replica that missed its start catches up. */
const WHOLE_PART_EVERY_MS = 1_000;

/**
 * The sending side: numbers this replica's events, sends them in batches (large ones through
 * `relayed_event`, streamed parts as deltas), keeps what it sent for resends, and announces its head.
 */
export class RelaySender {
  private readonly outbox = new RelayOutbox();
  private readonly history = new SentHistory();
  /** Streaming parts sent: text length other replicas hold, and when the whole part last went. */
  private readonly sentTexts = new Map<string, { length: number; wholeAt: number }>();
  private flushScheduled = false;
  private seq = 0;
  /** The last seq NOTIFY has carried, or kept while alone (what `head` announces: later ones may still wait in the outbox). */
  private sentSeq = 0;
  private dropped = 0;
  /** How this replica's own messages start (they come back through LISTEN and are skipped unparsed). */
  readonly ownPrefix: string;

  constructor(
    private readonly link: RelayLink,
    private readonly logger: Logger,
  ) {
    this.ownPrefix = originPrefix(link.origin);
  }

  send(envelope: GlobalEnvelope): void {
    const partID = isPartUpdate(envelope) ? envelope.payload.properties.part?.id : undefined;
    const seq = this.seq + 1;
    // Only the message waits (never the event: a streamed part's text would stay alive with it).
    if (!this.outbox.offer({ seq, inline: this.encode(envelope, seq), partID })) {
      if (partID) this.sentTexts.delete(partID);
      if (this.dropped++ % 1000 === 0)
        this.logger.warn({ msg: 'event relay backlog full; events not relayed', dropped: this.dropped });
      return;
    }
    this.seq = seq;
    this.scheduleFlush();
  }

  scheduleFlush(): void {
    if (this.flushScheduled || !this.link.isConnected() || this.outbox.size === 0) return;
    this.flushScheduled = true;
    this.link.enqueue(() => this.flush());
  }

  /** This replica's latest seq, so receivers notice messages they missed (and a new replica learns where to start). */
  announce(): void {
    this.link.enqueue(() => this.link.notify([`${this.ownPrefix}"head":${this.sentSeq}}`]));
  }

  /** Sends again, in order, the kept messages after `after` (asked by a replica that missed them). */
  resend(after: number | undefined): void {
    if (after === undefined) return;
    for (const batch of this.history.after(after, BATCH_MESSAGES)) this.link.enqueue(() => this.link.notify(batch));
  }

  /** The relay message of an event: a streamed part update as part-without-text + delta when receivers hold the text before it. */
  private encode(envelope: GlobalEnvelope, seq: number): string {
    const head = `${this.ownPrefix}"seq":${seq},"at":${Date.now()}`;
    const update = streaming(envelope);
    if (!update) {
      if (isPartUpdate(envelope) && envelope.payload.properties.part?.id)
        this.sentTexts.delete(envelope.payload.properties.part.id);
      return `${head},"envelope":${envelopeJsonOf(envelope)}}`;
    }
    const { part, delta } = update;
    const sent = this.sentTexts.get(part.id);
    const base = part.text.length - delta.length;
    const now = Date.now();
    if (sent && sent.length === base && now - sent.wholeAt < WHOLE_PART_EVERY_MS) {
      sent.length = part.text.length;
      const payload = { ...envelope.payload, properties: { ...update, part: { ...part, text: '' } } };
      return `${head},"envelope":${JSON.stringify({ ...envelope, payload })},"appended":{"base":${base}}}`;
    }
    remember(this.sentTexts, part.id, { length: part.text.length, wholeAt: now }, MAX_STREAMING_PARTS);
    return `${head},"envelope":${envelopeJsonOf(envelope)}}`;
  }

  /**
   * Sends what waits, in order, many messages per round trip (a streamed reply publishes thousands
   * of events a second; one query each would fall behind). A batch that fails on a lost connection
   * stays at the front of the outbox and is sent after the reconnect.
   */
  private async flush(): Promise<void> {
    try {
      while (this.link.isConnected() && this.outbox.size > 0) {
        const batch = this.outbox.nextBatch();
        const payloads: string[] = [];
        try {
          for (const { seq, inline } of batch) {
            if (inline.length <= INLINE_LIMIT / 3 || Buffer.byteLength(inline) <= INLINE_LIMIT)
              payloads.push(inline);
            else {
              const { rows } = await this.link.send<{ id: number }>(
                'INSERT INTO relayed_event (envelope, created_at) VALUES ($1, $2) RETURNING id',
                [inline, Date.now()],
              );
              payloads.push(
                JSON.stringify({ origin: this.link.origin, seq, ref: rows[0].id } satisfies RelayMessage),
              );
            }
          }
          if (this.link.hasPeers()) await this.link.notify(payloads);
        } catch (error) {
          if (isConnectionError(error)) return this.link.lost(error); // kept: sent again after the reconnect
          // Receivers now lack these updates: the next update of each streaming part goes whole.
          for (const { partID } of batch) if (partID) this.sentTexts.delete(partID);
          this.logger.warn({ msg: 'event relay send failed', events: batch.length, error: String(error) });
        }
        this.outbox.remove(batch);
        batch.forEach(({ seq }, i) => payloads[i] !== undefined && this.history.keep(seq, payloads[i]));
        this.sentSeq = batch[batch.length - 1].seq;
      }
    } finally {
      this.flushScheduled = false;
    }
  }
}
