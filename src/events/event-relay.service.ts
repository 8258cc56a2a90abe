import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { dialectOf } from '../database/data-source-options';
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
/** Messages sent per NOTIFY statement. */
const BATCH_MESSAGES = 500;
const BATCH_BYTES = 512 * 1024;

interface RelayMessage {
  origin: string;
  /** Per origin, increasing: keeps payloads distinct (PostgreSQL merges identical NOTIFYs of one transaction). */
  seq?: number;
  envelope?: GlobalEnvelope;
  /** The envelope is a streamed part update whose text is the receiver's text of that part (`base` chars) + delta. */
  appended?: { base: number };
  /** The message is in `relayed_event` (too large for NOTIFY). */
  ref?: number;
}

interface StreamingPart {
  part: { id: string; text: string };
  delta: string;
}

/** The part and delta of a streamed `message.part.updated`, else undefined. */
function streaming(envelope: GlobalEnvelope): StreamingPart | undefined {
  return streamedText(envelope.payload) === undefined ? undefined : (envelope.payload.properties as StreamingPart);
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
 * and after any gap (an event dropped by the backlog bound or a failed send); a replica that does
 * not hold the previous text (it started listening mid-stream, or missed a message) skips deltas
 * of that part until the next whole one.
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventRelay');
  private readonly origin = randomUUID();
  private listener?: Client;
  private sender?: Client;
  private queue: Promise<unknown> = Promise.resolve();
  private received: Promise<unknown> = Promise.resolve();
  private pendingBytes = 0;
  private dropped = 0;
  private sweeper?: NodeJS.Timeout;
  /** Streaming parts sent: text length other replicas hold, and when the whole part last went. */
  private readonly sentTexts = new Map<string, { length: number; wholeAt: number }>();
  /** Streaming parts received: their text so far. */
  private readonly receivedTexts = new Map<string, string>();
  private readonly outbox: { inline: string; partID?: string }[] = [];
  private flushScheduled = false;
  private seq = 0;
  /** How this replica's own messages start (they come back through LISTEN and are skipped unparsed). */
  private readonly ownPrefix = `{"origin":${JSON.stringify(this.origin)},`;

  constructor(
    private readonly bus: EventBus,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (dialectOf(this.settings) !== 'postgres' || process.env.KEEL_EVENT_RELAY === 'false') return;
    const options = {
      connectionString: this.settings.databaseUrl,
      ...(this.settings.databaseSchema ? { options: `-c search_path=${this.settings.databaseSchema}` } : {}),
    };
    this.listener = new Client(options);
    this.sender = new Client(options);
    await Promise.all([this.listener.connect(), this.sender.connect()]);
    // Received events are handled one at a time too: a large one fetched by id keeps its place.
    this.listener.on('notification', (message) => {
      this.received = this.received.then(() => this.receive(message.payload));
    });
    this.listener.on('error', (error) => this.logger.error({ msg: 'event relay listener failed', error: String(error) }));
    this.sender.on('error', (error) => this.logger.error({ msg: 'event relay sender failed', error: String(error) }));
    await this.listener.query(`LISTEN ${CHANNEL}`);
    this.bus.relayTo((envelope) => this.send(envelope));
    this.sweeper = setInterval(() => this.enqueue(() => this.sweep()), SWEEP_MS);
    this.sweeper.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.bus.relayTo(undefined);
    clearInterval(this.sweeper);
    await this.queue.catch(() => undefined);
    for (const client of [this.listener, this.sender]) await client?.end().catch(() => undefined);
  }

  private send(envelope: GlobalEnvelope): void {
    const partID = isPartUpdate(envelope) ? envelope.payload.properties.part?.id : undefined;
    const inline = this.encode(envelope);
    const size = inline.length;
    if (this.pendingBytes + size > MAX_PENDING_BYTES) {
      if (partID) this.sentTexts.delete(partID);
      if (this.dropped++ % 1000 === 0) this.logger.warn({ msg: 'event relay backlog full; events not relayed', dropped: this.dropped });
      return;
    }
    // Only the message waits (never the event: a streamed part's text would stay alive with it).
    this.pendingBytes += size;
    this.outbox.push({ inline, partID });
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    this.enqueue(() => this.flushOutbox());
  }

  /** The relay message of an event: a streamed part update as part-without-text + delta when receivers hold the text before it. */
  private encode(envelope: GlobalEnvelope): string {
    const head = `{"origin":${JSON.stringify(this.origin)},"seq":${++this.seq}`;
    const update = streaming(envelope);
    if (!update) {
      if (isPartUpdate(envelope) && envelope.payload.properties.part?.id) this.sentTexts.delete(envelope.payload.properties.part.id);
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
   * of events a second; one query each would fall behind). Within one statement PostgreSQL keeps
   * the NOTIFY order; `seq` keeps payloads distinct, since identical ones in a transaction are merged.
   */
  private async flushOutbox(): Promise<void> {
    const sender = this.sender!;
    while (this.outbox.length > 0) {
      let bytes = 0;
      let count = 0;
      while (count < this.outbox.length && count < BATCH_MESSAGES && bytes < BATCH_BYTES) bytes += this.outbox[count++].inline.length;
      const batch = this.outbox.splice(0, count);
      try {
        const payloads: string[] = [];
        for (const { inline } of batch) {
          if (inline.length <= INLINE_LIMIT / 3 || Buffer.byteLength(inline) <= INLINE_LIMIT) payloads.push(inline);
          else {
            const { rows } = await sender.query<{ id: number }>('INSERT INTO relayed_event (envelope, created_at) VALUES ($1, $2) RETURNING id', [inline, Date.now()]);
            payloads.push(JSON.stringify({ origin: this.origin, ref: rows[0].id } satisfies RelayMessage));
          }
        }
        await sender.query('SELECT pg_notify($1, m) FROM unnest($2::text[]) WITH ORDINALITY AS t(m, i) ORDER BY i', [CHANNEL, payloads]);
      } catch (error) {
        // Receivers now lack these updates: the next update of each streaming part goes whole.
        for (const { partID } of batch) if (partID) this.sentTexts.delete(partID);
        this.logger.warn({ msg: 'event relay send failed', events: batch.length, error: String(error) });
      } finally {
        this.pendingBytes -= bytes;
      }
    }
    this.flushScheduled = false;
  }

  private async receive(payload: string | undefined): Promise<void> {
    if (!payload || payload.startsWith(this.ownPrefix)) return;
    try {
      let message = JSON.parse(payload) as RelayMessage;
      if (message.origin === this.origin) return;
      if (message.ref !== undefined) {
        const { rows } = await this.listener!.query<{ envelope: string }>('SELECT envelope FROM relayed_event WHERE id = $1', [message.ref]);
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
      else if (isPartUpdate(envelope) && envelope.payload.properties.part?.id) this.receivedTexts.delete(envelope.payload.properties.part.id);
      this.bus.deliverRemote(envelope);
    } catch (error) {
      this.logger.warn({ msg: 'dropped a malformed relayed event', error: String(error) });
    }
  }

  private async sweep(): Promise<void> {
    await this.sender?.query('DELETE FROM relayed_event WHERE created_at < $1', [Date.now() - KEEP_MS]);
  }

  /** Sends run one at a time, so other replicas see events in publish order. */
  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((error) => this.logger.warn({ msg: 'event relay send failed', error: String(error) }));
  }
}
