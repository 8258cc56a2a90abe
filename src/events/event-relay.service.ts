import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { dialectOf } from '../database/data-source-options';
import { Metrics } from '../observability/metrics.service';
import { EventBus } from './event-bus.service';
import { isConnectionError } from './relay-message';
import type { RelayLink } from './relay-message';
import { RelayReceiver } from './relay-receiver';
import { RelaySender } from './relay-sender';

const CHANNEL = 'keel_events';
const SWEEP_MS = 30_000;
const KEEP_MS = 60_000;
/** How often each replica announces its latest seq, and checks its gaps. */
const HEAD_EVERY_MS = 500;
/** Silence after which a replica counts itself alone (four announcements missed) and stops sending its events. */
const PEER_SILENT_MS = 2_000;
const RECONNECT_FIRST_MS = 50;
const RECONNECT_MAX_MS = 5_000;

/**
 * With PostgreSQL, replicas share events through LISTEN/NOTIFY, so a client connected to one
 * replica sees what another replica did. One connection listens; one sends, in publish order.
 * Disabled with KEEL_EVENT_RELAY=false, and never active on SQLite (one process).
 *
 * A streamed part update carries the whole part (the text so far), so relaying each one would
 * send O(n²) bytes per reply through the database. Instead it travels as the part without its
 * text plus the delta; the receiver rebuilds the text from its copy of the previous update, so its
 * clients get byte-identical events. The whole part goes again at least every second and after any
 * gap (an event dropped by the backlog bound); a replica that does not hold the previous text (it
 * started listening mid-stream) skips deltas of that part until the next whole one.
 *
 * A replica that has heard no other for PEER_SILENT_MS is alone: it still numbers and keeps its
 * messages and announces its head, but sends none (a single replica pays no NOTIFY per event). A
 * replica that connects announces itself at once, so the others hear it before it serves a request,
 * and assumes company for PEER_SILENT_MS itself; one that was silent longer finds a gap in the
 * announced heads and asks for the kept messages, like after a lost connection.
 *
 * NOTIFY is not durable, so the relay survives lost connections itself: each origin numbers its
 * messages, keeps the recent ones, and announces its latest number every HEAD_EVERY_MS. When the
 * connections drop (a failover, `pg_terminate_backend`), unsent messages stay queued and the relay
 * reconnects with backoff and listens again; a receiver that sees a gap in an origin's numbers (or
 * has just reconnected) asks that origin to send again what follows the last one it delivered,
 * holds what arrives meanwhile, and delivers everything in order and once. A gap no origin can fill
 * within its wait (its history was evicted, or it died) is skipped.
 *
 * This class holds the connections and their lifecycle; RelaySender is the sending side
 * (outbox, history, heads), RelayReceiver the receiving one (per-origin order, gaps, resend asks).
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventRelay');
  private listener?: Client;
  private sender?: Client;
  /** False between a lost connection and the reconnect that replaces it. */
  private connected = false;
  private stopping = false;
  private reconnectTimer?: NodeJS.Timeout;
  private failedAttempts = 0;
  /** When another replica was last heard (any message on the channel not this one's). */
  private peerHeardAt = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private received: Promise<unknown> = Promise.resolve();
  private timers: NodeJS.Timeout[] = [];
  private readonly link: RelayLink = {
    origin: randomUUID(),
    isConnected: () => this.connected,
    hasPeers: () => Date.now() - this.peerHeardAt < PEER_SILENT_MS,
    send: (sql, params) => this.sender!.query(sql, params),
    fetch: (sql, params) => this.listener!.query(sql, params),
    notify: (payloads) => this.notify(payloads),
    enqueue: (task) => this.enqueue(task),
    lost: (error) => this.lost(this.listener!, error),
  };
  private readonly outgoing = new RelaySender(this.link, this.logger);
  private readonly incoming = new RelayReceiver(
    this.link,
    {
      deliver: (envelope) => this.bus.deliverRemote(envelope),
      observeLag: (seconds) => this.metrics.relayLag.observe(seconds),
      resendAsked: (after) => this.outgoing.resend(after),
    },
    this.logger,
  );

  constructor(
    private readonly bus: EventBus,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (dialectOf(this.settings) !== 'postgres' || !this.settings.eventRelay) return;
    await this.connect();
    // The others hear this replica before it serves a request (see `alone`).
    await this.queue;
    this.bus.relayTo((envelope) => this.outgoing.send(envelope));
    this.timers = [
      setInterval(() => this.connected && this.enqueue(() => this.sweep()), SWEEP_MS),
      setInterval(() => this.announce(), HEAD_EVERY_MS),
    ];
    for (const timer of this.timers) timer.unref();
  }

  /**
   * While this replica is connected and has heard no other for PEER_SILENT_MS: when it last heard one,
   * a value that stays the same as long as it is alone (another replica announces itself every
   * HEAD_EVERY_MS from its start, before it serves a request). Undefined otherwise, and always on
   * SQLite or with the relay off, where nothing tells this replica of the others.
   */
  alone(): number | undefined {
    return this.connected && !this.link.hasPeers() ? this.peerHeardAt : undefined;
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
    const { Client } = require('pg') as typeof import('pg'); // on PostgreSQL only
    const listener = new Client(options);
    const sender = new Client(options);
    const lost = (error?: unknown) => this.lost(listener, error);
    for (const client of [listener, sender]) {
      client.on('error', lost);
      client.on('end', lost);
    }
    // Received messages are handled one at a time too: a large one fetched by id keeps its place.
    listener.on('notification', (message) => {
      if (!message.payload?.startsWith(this.outgoing.ownPrefix)) this.peerHeardAt = Date.now();
      this.received = this.received.then(() => this.incoming.receive(message.payload));
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
    // Until the others have had time to announce themselves, this replica sends as if they were there.
    this.peerHeardAt = Date.now();
    this.outgoing.announce();
    // What was published elsewhere while this replica was not listening.
    this.incoming.askMissed();
    this.outgoing.scheduleFlush();
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

  /** Announces this replica's head, and checks the gaps in what it received (in the receive order). */
  private announce(): void {
    if (!this.connected) return;
    this.outgoing.announce();
    this.received = this.received.then(() => this.incoming.checkGaps());
  }

  /**
   * NOTIFY the payloads in one statement; PostgreSQL keeps their order. They go as one JSON array
   * (JSON.stringify is native; pg escapes a text[] parameter element by element in JavaScript).
   */
  private async notify(payloads: string[]): Promise<void> {
    if (!this.connected || payloads.length === 0) return;
    await this.sender!.query(
      'SELECT pg_notify($1, m) FROM json_array_elements_text($2::json) WITH ORDINALITY AS t(m, i) ORDER BY i',
      [CHANNEL, JSON.stringify(payloads)],
    );
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
