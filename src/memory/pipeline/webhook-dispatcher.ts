import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { createHmac, randomUUID } from 'node:crypto';
import { INGESTION_SETTINGS } from '../ingestion-settings';
import type { IngestionSettings } from '../ingestion-settings';
import { Metrics } from '../../observability/metrics.service';
import { isoTime } from '../documents/document-views';
import type { WebhookOutboxResponse } from './dto/webhook.dto';
import { ClaimedDelivery, PendingDelivery, WebhookOutboxRepository } from './webhook-outbox.repository';

const MAX_BACKOFF_MS = 60_000;
/** Longest wait between looks at the outbox (rows another replica left, retries coming due). */
const MAX_IDLE_MS = 1000;
/** An attempt's lease beyond its timeout: a crash mid-attempt makes the row due again after it. */
const LEASE_SLACK_MS = 5000;

/**
 * Delivers events to the configured webhooks through an outbox table, off the pipeline's path:
 * `enqueue` only buffers (rows are written in batches). A non-2xx answer, a timeout or a refused
 * connection is retried with exponential backoff (jittered, honouring Retry-After) up to the
 * configured attempts, so a slow or down receiver loses nothing, and neither does a restart.
 * Each receiver has its own concurrency and row bound; claims use SKIP LOCKED on PostgreSQL so
 * replicas never send one attempt twice.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('IngestionWebhooks');
  private buffer: PendingDelivery[] = [];
  private flushing?: Promise<void>;
  private readonly inFlight = new Map<string, number>();
  private readonly attempts = new Set<Promise<void>>();
  private pumping = false;
  private again = false;
  private timer?: NodeJS.Timeout;
  private stopping = false;

  constructor(
    private readonly deliveries: WebhookOutboxRepository,
    @Inject(INGESTION_SETTINGS) private readonly settings: IngestionSettings,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.metrics.sample('keel_webhook_outbox_depth', 'Webhook deliveries waiting or retrying (all replicas)', () => this.deliveries.depth());
    const urls = this.settings.webhooks;
    await this.deliveries.keepOnly(urls);
    if (!urls.length) return;
    await this.deliveries.endPreviousRun(Date.now());
    this.wake();
  }

  /**
   * `GET /v3/webhooks/deliveries` (a Keel addition): the outbox, oldest first — deliveries waiting,
   * in flight or retrying (accepted or given-up ones are gone). Receiver URLs are shown without
   * credentials or query, which may hold secrets.
   */
  async outbox(org: string, documentId?: string): Promise<WebhookOutboxResponse> {
    const { rows, total } = await this.deliveries.page(org, documentId);
    return {
      receivers: this.settings.webhooks.map(receiverName),
      maxAttempts: this.settings.webhookAttempts,
      total,
      deliveries: rows.map((r) => {
        const event = JSON.parse(r.body) as { type: string; data: { id?: string; status?: string } };
        return { id: r.id, receiver: receiverName(r.url), type: event.type, documentId: event.data.id ?? null, status: event.data.status ?? null, attempts: r.attempts, nextAttemptAt: isoTime(r.due_at), lastError: r.last_error, createdAt: isoTime(r.created_at) };
      }),
    };
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.flush();
    await Promise.all(this.attempts);
  }

  enqueue(type: string, data: unknown, orgId: string): void {
    if (!this.settings.webhooks.length) return;
    const body = JSON.stringify({ type, data });
    const createdAt = Date.now();
    for (const url of this.settings.webhooks) this.buffer.push({ id: randomUUID(), orgId, url, body, createdAt });
    // Transitions come in bursts: one write for all of a tick's events.
    if (this.buffer.length === this.settings.webhooks.length) setImmediate(() => void this.flush());
  }

  private flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
      if (this.buffer.length) void this.flush();
    });
    return this.flushing;
  }

  private async write(): Promise<void> {
    const rows = this.buffer;
    this.buffer = [];
    if (!rows.length) return;
    try {
      const dropped = await this.deliveries.insert(rows, this.settings.webhookQueueLimit);
      for (const [url, count] of dropped) this.logger.warn({ msg: 'webhook outbox full; oldest deliveries dropped', url, count });
    } catch (error) {
      this.logger.error({ msg: 'webhook deliveries could not be stored; they are lost', count: rows.length, error: (error as Error).message });
      return;
    }
    this.wake();
  }

  private wake(): void {
    if (this.stopping) return;
    if (this.pumping) this.again = true;
    else void this.pump();
  }

  /** Claim what is due for every receiver with free slots, start those attempts, and sleep until the next is due. */
  private async pump(): Promise<void> {
    this.pumping = true;
    clearTimeout(this.timer);
    try {
      do {
        this.again = false;
        for (const url of this.settings.webhooks) {
          const free = this.settings.webhookConcurrency - (this.inFlight.get(url) ?? 0);
          if (free <= 0 || this.stopping) continue;
          const now = Date.now();
          const lease = now + this.settings.webhookTimeoutMs + LEASE_SLACK_MS;
          for (const row of await this.deliveries.claim(url, free, now, lease)) this.start(row);
        }
      } while (this.again && !this.stopping);
      if (this.stopping) return;
      // Receivers at their concurrency are woken by their attempts finishing, not by the clock.
      const open = this.settings.webhooks.filter((url) => (this.inFlight.get(url) ?? 0) < this.settings.webhookConcurrency);
      const next = await this.deliveries.nextDue(open);
      const wait = next === undefined ? MAX_IDLE_MS : Math.min(MAX_IDLE_MS, Math.max(10, next - Date.now()));
      this.timer = setTimeout(() => this.wake(), wait).unref();
    } catch (error) {
      if (!this.stopping) {
        this.logger.error({ msg: 'webhook outbox unavailable', error: (error as Error).message });
        this.timer = setTimeout(() => this.wake(), MAX_IDLE_MS).unref();
      }
    } finally {
      this.pumping = false;
      if (this.again) this.wake();
    }
  }

  private start(row: ClaimedDelivery): void {
    this.inFlight.set(row.url, (this.inFlight.get(row.url) ?? 0) + 1);
    const attempt: Promise<void> = this.attempt(row)
      .catch((error: Error) => this.logger.error({ msg: 'webhook outbox update failed', delivery: row.id, error: error.message }))
      .finally(() => {
        this.attempts.delete(attempt);
        this.inFlight.set(row.url, (this.inFlight.get(row.url) ?? 1) - 1);
        this.wake();
      });
    this.attempts.add(attempt);
  }

  private async attempt(row: ClaimedDelivery): Promise<void> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-keel-delivery': row.id,
      'x-keel-delivery-attempt': String(row.attempts),
    };
    if (this.settings.webhookSecret) headers['x-keel-signature'] = `sha256=${createHmac('sha256', this.settings.webhookSecret).update(row.body).digest('hex')}`;
    let failure: string;
    let retryAfterMs: number | undefined;
    try {
      const response = await fetch(row.url, { method: 'POST', headers, body: row.body, redirect: 'manual', signal: AbortSignal.timeout(this.settings.webhookTimeoutMs) });
      await response.body?.cancel();
      if (response.ok) {
        await this.deliveries.remove(row.id);
        return;
      }
      failure = `HTTP ${response.status}`;
      retryAfterMs = retryAfter(response.headers.get('retry-after'));
    } catch (error) {
      failure = (error as Error).name === 'TimeoutError' ? `no answer within ${this.settings.webhookTimeoutMs} ms` : (error as Error).message;
    }
    if (row.attempts >= this.settings.webhookAttempts) {
      this.logger.error({ msg: 'webhook delivery given up', url: row.url, delivery: row.id, attempts: row.attempts, error: failure });
      await this.deliveries.remove(row.id);
      return;
    }
    const backoff = Math.min(MAX_BACKOFF_MS, this.settings.webhookBackoffMs * 2 ** (row.attempts - 1));
    // Jitter spreads the retries of many deliveries that failed together (a receiver restarting).
    const delay = Math.max(backoff * (0.5 + Math.random() / 2), Math.min(retryAfterMs ?? 0, MAX_BACKOFF_MS));
    this.logger.warn({ msg: 'webhook delivery failed; will retry', url: row.url, delivery: row.id, attempt: row.attempts, error: failure, retryInMs: Math.round(delay) });
    await this.deliveries.retryAt(row.id, Date.now() + Math.round(delay), failure.slice(0, 500));
  }
}

function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** A receiver URL without user info or query string. */
function receiverName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'invalid URL';
  }
}
