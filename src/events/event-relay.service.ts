import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { dialectOf } from '../database/data-source-options';
import { EventBus, GlobalEnvelope } from './event-bus.service';

const CHANNEL = 'keel_events';
/** NOTIFY payloads must stay under 8000 bytes; larger events go through `relayed_event`. */
const INLINE_LIMIT = 7000;
const SWEEP_MS = 30_000;
const KEEP_MS = 60_000;
/** Bytes of events waiting to be relayed before new ones are dropped (a stalled database must not grow memory). */
const MAX_PENDING_BYTES = 32 * 1024 * 1024;

interface RelayMessage {
  origin: string;
  envelope?: GlobalEnvelope;
  ref?: number;
}

/**
 * With PostgreSQL, replicas share events through LISTEN/NOTIFY, so a client connected to one
 * replica sees what another replica did. One connection listens; one sends, in publish order.
 * Disabled with KEEL_EVENT_RELAY=false, and never active on SQLite (one process).
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EventRelay.name);
  private readonly origin = randomUUID();
  private listener?: Client;
  private sender?: Client;
  private queue: Promise<unknown> = Promise.resolve();
  private received: Promise<unknown> = Promise.resolve();
  private pendingBytes = 0;
  private dropped = 0;
  private sweeper?: NodeJS.Timeout;

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
    const inline = JSON.stringify({ origin: this.origin, envelope } satisfies RelayMessage);
    const size = Buffer.byteLength(inline);
    if (this.pendingBytes + size > MAX_PENDING_BYTES) {
      if (this.dropped++ % 1000 === 0) this.logger.warn({ msg: 'event relay backlog full; events not relayed', dropped: this.dropped });
      return;
    }
    this.pendingBytes += size;
    this.enqueue(async () => {
      try {
        await this.deliver(inline, envelope);
      } finally {
        this.pendingBytes -= size;
      }
    });
  }

  private async deliver(inline: string, envelope: GlobalEnvelope): Promise<void> {
    const sender = this.sender!;
    if (Buffer.byteLength(inline) <= INLINE_LIMIT) {
      await sender.query('SELECT pg_notify($1, $2)', [CHANNEL, inline]);
      return;
    }
    const { rows } = await sender.query<{ id: number }>(
      'INSERT INTO relayed_event (envelope, created_at) VALUES ($1, $2) RETURNING id',
      [JSON.stringify(envelope), Date.now()],
    );
    await sender.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify({ origin: this.origin, ref: rows[0].id })]);
  }

  private async receive(payload: string | undefined): Promise<void> {
    if (!payload) return;
    try {
      const message = JSON.parse(payload) as RelayMessage;
      if (message.origin === this.origin) return;
      if (message.envelope) return this.bus.deliverRemote(message.envelope);
      const { rows } = await this.listener!.query<{ envelope: string }>('SELECT envelope FROM relayed_event WHERE id = $1', [message.ref]);
      if (rows[0]) this.bus.deliverRemote(JSON.parse(rows[0].envelope) as GlobalEnvelope);
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
