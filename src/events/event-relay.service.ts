import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { dialectOf } from '../database/data-source-options';
import { Metrics } from '../observability/metrics.service';
import { EventBus, GlobalEnvelope } from './event-bus.service';
import { envelopeJsonOf, streamedText } from './event-frames';

const CHANNEL = 'keel_events';
/** NOTIFY payloads must stay under 8000 bytes; larger events go through `relayed_event`. */
const INLINE_LIMIT = 7000;
const SWEEP_MS = 30_000;
const KEEP_MS = 60_000;
/** Bytes of events waiting to be relayed before new ones are dropped (a stalled database must not grow memory). */
const MAX_PENDING_BYTES = 32 * 1024 * 1024;
/** How often a streaming part travels whole, so a replica that missed its start catches up. */
const WHOLE_PART_EVERY_MS = 1_000;
/** Streaming parts tracked per side; a part's final update (no delta) ends its tracking. */
const MAX_STREAMING_PARTS = 256;
/** Sent messages kept for replicas that missed them (a lost connection, a restart of their listener). */
const HISTORY_BYTES = 16 * 1024 * 1024;
const HISTORY_MS = 60_000;
/** How often each replica announces its latest seq, and checks its gaps. */
const HEAD_EVERY_MS = 500;
/** How long a gap waits to be filled by a resend before it is skipped. */
const GAP_WAIT_MS = 3_000;
const RESEND_ASK_EVERY_MS = 250;
/** Origins not heard from for this long are forgotten (replicas that stopped). */
const FORGET_ORIGIN_MS = 10 * 60_000;
const RECONNECT_FIRST_MS = 50;
const RECONNECT_MAX_MS = 5_000;
/** Messages sent per NOTIFY statement. */
const BATCH_MESSAGES = 500;
const BATCH_BYTES = 512 * 1024;

interface RelayMessage {
  origin: string;
  /** Per origin, consecutive from 1: receivers deliver each origin's messages in this order, once. */
  seq?: number;
  envelope?: GlobalEnvelope;
  /** The envelope is a streamed part update whose text is the receiver's text of that part (`base` chars) + delta. */
  appended?: { base: number };
  /** The message is in `relayed_event` (too large for NOTIFY). */
  ref?: number;
  /** When the origin published it (epoch ms). */
  at?: number;
  /** The origin's latest seq, announced every HEAD_EVERY_MS so a receiver notices what it missed. */
  head?: number;
  /** Asks each origin named to send again its messages after the seq given. */
  resend?: Record<string, number>;
}

/** A remote origin as this replica follows it. */
interface OriginState {
  /** Last seq delivered (or skipped). */
  delivered: number;
  /** Highest seq known to exist (seen, or announced). */
  known: number;
  /** Messages that arrived ahead of a gap, by seq, waiting for it to be filled. */
  held: Map<number, RelayMessage>;
  /** When the oldest unfilled gap was noticed. */
  gapSince?: number;
  /** When a resend of the gap was last asked for. */
  askedAt?: number;
  heardAt: number;
}

interface StreamingPart {
  part: { id: string; text: string };
  delta: string;
}

/** The part and delta of a streamed `message.part.updated`, else undefined. */
function streaming(envelope: GlobalEnvelope): StreamingPart | undefined {
  return streamedText(envelope.payload) === undefined
    ? undefined
    : (envelope.payload.properties as StreamingPart);
}

function isPartUpdate(envelope: GlobalEnvelope): envelope is GlobalEnvelope<{ part?: { id?: string } }> {
  return envelope.payload.type === 'message.part.updated';
}

/** Insertion-ordered map that forgets its oldest entry past `limit`. */
function remember<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  map.delete(key);
  if (map.size >= limit) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/**
 * With PostgreSQL, replicas share events through LISTEN/NOTIFY, so a client connected to one
 * replica sees what another replica did. One connection listens; one sends, in publish order.
 * Disabled with KEEL_EVENT_RELAY=false, and never active on SQLite (one process).
 *
 * A streamed part update carries the whole part (the text so far), so relaying each one would
 * send O(n²) bytes per reply through the database. Instead it travels as the part without its
 * text plus the delta; the receiver rebuilds the text from its copy of the previous update, so its
 * clients get byte-identical events. The whole part goes again at least every WHOLE_PART_EVERY_MS
 * and after any gap (an event dropped by the backlog bound); a replica that does not hold the
 * previous text (it started listening mid-stream) skips deltas of that part until the next whole one.
 *
 * NOTIFY is not durable, so the relay survives lost connections itself: each origin numbers its
 * messages, keeps the recent ones, and announces its latest number every HEAD_EVERY_MS. When the
 * connections drop (a failover, `pg_terminate_backend`), unsent messages stay queued and the relay
 * reconnects with backoff and listens again; a receiver that sees a gap in an origin's numbers (or
 * has just reconnected) asks that origin to send again what follows the last one it delivered,
 * holds what arrives meanwhile, and delivers everything in order and once. A gap no origin can fill
 * within GAP_WAIT_MS (its history was evicted, or it died) is skipped.
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventRelay');
  private readonly origin = randomUUID();
  private listener?: Client;
  private sender?: Client;
  /** False between a lost connection and the reconnect that replaces it. */
  private connected = false;
  private stopping = false;
  private reconnectTimer?: NodeJS.Timeout;
  private failedAttempts = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private received: Promise<unknown> = Promise.resolve();
  private pendingBytes = 0;
  private dropped = 0;
  private timers: NodeJS.Timeout[] = [];
  /** Streaming parts sent: text length other replicas hold, and when the whole part last went. */
  private readonly sentTexts = new Map<string, { length: number; wholeAt: number }>();
  /** Streaming parts received: their text so far. */
  private readonly receivedTexts = new Map<string, string>();
  private readonly outbox: { seq: number; inline: string; partID?: string }[] = [];
  private flushScheduled = false;
  private seq = 0;
  /** The last seq NOTIFY has carried (what `head` announces: later ones may still wait in the outbox). */
  private sentSeq = 0;
  /** Messages sent (as sent: inline, or the `ref` to their row), kept for resends; bounded by HISTORY_BYTES and HISTORY_MS. */
  private readonly history: { seq: number; payload: string; at: number }[] = [];
  private historyBytes = 0;
  private readonly origins = new Map<string, OriginState>();
  /** How this replica's own messages start (they come back through LISTEN and are skipped unparsed). */
  private readonly ownPrefix = `{"origin":${JSON.stringify(this.origin)},`;

  constructor(
    private readonly bus: EventBus,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (dialectOf(this.settings) !== 'postgres' || !this.settings.eventRelay) return;
    await this.connect();
    this.bus.relayTo((envelope) => this.send(envelope));
    this.timers = [
      setInterval(() => this.connected && this.enqueue(() => this.sweep()), SWEEP_MS),
      setInterval(() => this.announce(), HEAD_EVERY_MS),
    ];
    for (const timer of this.timers) timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.bus.relayTo(undefined);
    for (const timer of this.timers) clearInterval(timer);
    clearTimeout(this.reconnectTimer);
    await this.queue.catch(() => undefined);
    for (const client of [this.listener, this.sender]) await client?.end().catch(() => undefined);
  }

  /** Opens both connections and listens; on a later loss, `lost` starts over with backoff. */
  private async connect(): Promise<void> {
    const options = {
      connectionString: this.settings.databaseUrl,
      ...(this.settings.databaseSchema ? { options: `-c search_path=${this.settings.databaseSchema}` } : {}),
    };
    const listener = new Client(options);
    const sender = new Client(options);
    const lost = (error?: unknown) => this.lost(listener, error);
    for (const client of [listener, sender]) {
      client.on('error', lost);
      client.on('end', lost);
    }
    // Received messages are handled one at a time too: a large one fetched by id keeps its place.
    listener.on('notification', (message) => {
      this.received = this.received.then(() => this.receive(message.payload));
    });
    try {
      await Promise.all([listener.connect(), sender.connect()]);
      await listener.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      for (const client of [listener, sender]) client.removeAllListeners('end');
      await Promise.all([listener.end().catch(() => undefined), sender.end().catch(() => undefined)]);
      throw error;
    }
    this.listener = listener;
    this.sender = sender;
    this.connected = true;
    this.failedAttempts = 0;
    // What was published elsewhere while this replica was not listening.
    if (this.origins.size > 0) {
      const after = Object.fromEntries([...this.origins].map(([origin, state]) => [origin, state.delivered]));
      this.enqueue(() =>
        this.notify([JSON.stringify({ origin: this.origin, resend: after } satisfies RelayMessage)]),
      );
    }
    this.scheduleFlush();
  }

  /** A connection failed or ended: drop both (unless they were already replaced) and reconnect with backoff. */
  private lost(listener: Client, error: unknown): void {
    if (this.stopping || listener !== this.listener || !this.connected) return;
    this.connected = false;
    this.logger.warn({
      msg: 'event relay lost its database connection; reconnecting',
      error: error instanceof Error ? error.message : 'ended',
    });
    for (const client of [this.listener, this.sender]) {
      client?.removeAllListeners('end');
      client?.end().catch(() => undefined);
    }
    this.reconnectSoon();
  }

  private reconnectSoon(): void {
    if (this.stopping) return;
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** this.failedAttempts++);
    this.reconnectTimer = setTimeout(() => {
      this.connect().then(
        () => {
          this.metrics.relayReconnects.inc();
          this.logger.log({ msg: 'event relay reconnected' });
        },
        (error) => {
          this.logger.warn({ msg: 'event relay reconnect failed', error: String(error), retryInMs: delay });
          this.reconnectSoon();
        },
      );
    }, delay);
    this.reconnectTimer.unref();
  }

  private send(envelope: GlobalEnvelope): void {
    const partID = isPartUpdate(envelope) ? envelope.payload.properties.part?.id : undefined;
    const seq = this.seq + 1;
    const inline = this.encode(envelope, seq);
    const size = inline.length;
    if (this.pendingBytes + size > MAX_PENDING_BYTES) {
      if (partID) this.sentTexts.delete(partID);
      if (this.dropped++ % 1000 === 0)
        this.logger.warn({ msg: 'event relay backlog full; events not relayed', dropped: this.dropped });
      return;
    }
    // Only the message waits (never the event: a streamed part's text would stay alive with it).
    this.seq = seq;
    this.pendingBytes += size;
    this.outbox.push({ seq, inline, partID });
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || !this.connected || this.outbox.length === 0) return;
    this.flushScheduled = true;
    this.enqueue(() => this.flushOutbox());
  }

  /** The relay message of an event: a streamed part update as part-without-text + delta when receivers hold the text before it. */
  private encode(envelope: GlobalEnvelope, seq: number): string {
    const head = `{"origin":${JSON.stringify(this.origin)},"seq":${seq},"at":${Date.now()}`;
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
   * goes back to the front of the outbox and is sent after the reconnect.
   */
  private async flushOutbox(): Promise<void> {
    try {
      while (this.connected && this.outbox.length > 0) {
        let bytes = 0;
        let count = 0;
        while (count < this.outbox.length && count < BATCH_MESSAGES && bytes < BATCH_BYTES)
          bytes += this.outbox[count++].inline.length;
        const batch = this.outbox.slice(0, count);
        const payloads: string[] = [];
        try {
          for (const { seq, inline } of batch) {
            if (inline.length <= INLINE_LIMIT / 3 || Buffer.byteLength(inline) <= INLINE_LIMIT)
              payloads.push(inline);
            else {
              const { rows } = await this.sender!.query<{ id: number }>(
                'INSERT INTO relayed_event (envelope, created_at) VALUES ($1, $2) RETURNING id',
                [inline, Date.now()],
              );
              payloads.push(
                JSON.stringify({ origin: this.origin, seq, ref: rows[0].id } satisfies RelayMessage),
              );
            }
          }
          await this.notify(payloads);
        } catch (error) {
          if (isConnectionError(error)) return this.lost(this.listener!, error); // kept: sent again after the reconnect
          // Receivers now lack these updates: the next update of each streaming part goes whole.
          for (const { partID } of batch) if (partID) this.sentTexts.delete(partID);
          this.logger.warn({ msg: 'event relay send failed', events: batch.length, error: String(error) });
        }
        this.outbox.splice(0, count);
        this.pendingBytes -= bytes;
        batch.forEach(({ seq }, i) => payloads[i] !== undefined && this.keep(seq, payloads[i]));
        this.sentSeq = batch[batch.length - 1].seq;
      }
    } finally {
      this.flushScheduled = false;
    }
  }

  /** NOTIFY the payloads in one statement; PostgreSQL keeps their order. */
  private async notify(payloads: string[]): Promise<void> {
    if (!this.connected || payloads.length === 0) return;
    await this.sender!.query(
      'SELECT pg_notify($1, m) FROM unnest($2::text[]) WITH ORDINALITY AS t(m, i) ORDER BY i',
      [CHANNEL, payloads],
    );
  }

  /** Keeps a sent message for resends, forgetting the oldest past the bounds. */
  private keep(seq: number, payload: string): void {
    const now = Date.now();
    this.history.push({ seq, payload, at: now });
    this.historyBytes += payload.length;
    while (
      this.history.length > 0 &&
      (this.historyBytes > HISTORY_BYTES || now - this.history[0].at > HISTORY_MS)
    ) {
      this.historyBytes -= this.history.shift()!.payload.length;
    }
  }

  /** This replica's latest seq, so receivers notice messages they missed (and a new replica learns where to start). */
  private announce(): void {
    if (!this.connected) return;
    this.enqueue(() => this.notify([`${this.ownPrefix}"head":${this.sentSeq}}`]));
    this.received = this.received.then(() => this.checkGaps());
  }

  private async receive(payload: string | undefined): Promise<void> {
    if (!payload || payload.startsWith(this.ownPrefix)) return;
    try {
      const message = JSON.parse(payload) as RelayMessage;
      if (message.origin === this.origin) return;
      if (message.resend) return this.resend(message.resend[this.origin]);
      const latest = message.head ?? message.seq;
      if (latest === undefined) return;
      // At first contact, what the origin sent before is history this replica never saw.
      const state = this.follow(message.origin, message.head === undefined ? latest - 1 : latest);
      state.known = Math.max(state.known, latest);
      if (message.head === undefined && latest > state.delivered) state.held.set(latest, message);
      await this.deliverHeld(state);
      if (state.known > state.delivered) this.noticeGap(state, message.origin);
    } catch (error) {
      this.logger.warn({ msg: 'dropped a malformed relayed event', error: String(error) });
    }
  }

  /** The state of an origin, created at first contact as having delivered `delivered`. */
  private follow(origin: string, delivered: number): OriginState {
    let state = this.origins.get(origin);
    if (!state) {
      state = { delivered, known: delivered, held: new Map(), heardAt: Date.now() };
      this.origins.set(origin, state);
    }
    state.heardAt = Date.now();
    return state;
  }

  /** Delivers the held messages that continue the origin's sequence. */
  private async deliverHeld(state: OriginState): Promise<void> {
    let next: RelayMessage | undefined;
    while ((next = state.held.get(state.delivered + 1))) {
      state.held.delete(state.delivered + 1);
      state.delivered++;
      await this.deliver(next);
    }
    if (state.known <= state.delivered) state.gapSince = state.askedAt = undefined;
  }

  private noticeGap(state: OriginState, origin: string): void {
    const now = Date.now();
    state.gapSince ??= now;
    if (state.askedAt !== undefined && now - state.askedAt < RESEND_ASK_EVERY_MS) return;
    state.askedAt = now;
    this.enqueue(() =>
      this.notify([
        JSON.stringify({ origin: this.origin, resend: { [origin]: state.delivered } } satisfies RelayMessage),
      ]),
    );
  }

  /** Skips gaps nobody filled in time, and forgets origins long silent (replicas that stopped). Runs in the receive order. */
  private async checkGaps(): Promise<void> {
    const now = Date.now();
    for (const [origin, state] of this.origins) {
      if (now - state.heardAt > FORGET_ORIGIN_MS) this.origins.delete(origin);
      else if (state.gapSince !== undefined && now - state.gapSince > GAP_WAIT_MS) {
        const resume = state.held.size > 0 ? Math.min(...state.held.keys()) - 1 : state.known;
        this.logger.warn({
          msg: 'event relay skipped events no replica could send again',
          origin,
          missed: resume - state.delivered,
        });
        state.delivered = resume;
        await this.deliverHeld(state);
      }
    }
  }

  /** Sends again, in order, the kept messages after `after` (asked by a replica that missed them). */
  private resend(after: number | undefined): void {
    if (after === undefined) return;
    const payloads = this.history.filter((m) => m.seq > after).map((m) => m.payload);
    for (let i = 0; i < payloads.length; i += BATCH_MESSAGES) {
      const batch = payloads.slice(i, i + BATCH_MESSAGES);
      this.enqueue(() => this.notify(batch));
    }
  }

  private async deliver(message: RelayMessage): Promise<void> {
    if (message.ref !== undefined) {
      const { rows } = await this.listener!.query<{ envelope: string }>(
        'SELECT envelope FROM relayed_event WHERE id = $1',
        [message.ref],
      );
      if (!rows[0]) return;
      message = JSON.parse(rows[0].envelope) as RelayMessage;
    }
    const envelope = message.envelope;
    if (!envelope) return;
    const update = streaming(envelope);
    if (message.appended && update) {
      const previous = this.receivedTexts.get(update.part.id);
      if (previous?.length !== message.appended.base) return;
      update.part.text = previous + update.delta;
    }
    if (update) remember(this.receivedTexts, update.part.id, update.part.text, MAX_STREAMING_PARTS);
    else if (isPartUpdate(envelope) && envelope.payload.properties.part?.id)
      this.receivedTexts.delete(envelope.payload.properties.part.id);
    if (message.at !== undefined) this.metrics.relayLag.observe((Date.now() - message.at) / 1000);
    this.bus.deliverRemote(envelope);
  }

  private async sweep(): Promise<void> {
    await this.sender?.query('DELETE FROM relayed_event WHERE created_at < $1', [Date.now() - KEEP_MS]);
  }

  /** Sends run one at a time, so other replicas see events in publish order. */
  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((error) => {
      if (!isConnectionError(error))
        this.logger.warn({ msg: 'event relay send failed', error: String(error) });
    });
  }
}

/** True for errors of a lost connection (as opposed to a statement PostgreSQL refused). */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code !== 'string' || code.startsWith('08') || code.startsWith('57P');
}
