import { Injectable } from '@nestjs/common';
import { IngestionStore, placeholders, Query, slices } from '../store';
import type { WebhookDelivery } from './webhook-delivery.entity';

export type PendingDelivery = Pick<WebhookDelivery, 'id' | 'orgId' | 'url' | 'body' | 'createdAt'>;

export type ClaimedDelivery = Pick<WebhookDelivery, 'id' | 'url' | 'body' | 'attempts'>;

interface OutboxRow extends ClaimedDelivery {
  due_at: number | string;
  last_error: string | null;
  created_at: number | string;
}

/**
 * Claims and outcomes may be lost in a crash without harm (the row is attempted again: delivery is
 * at least once, and the stable delivery id lets receivers drop a repeat); only the insert must be durable.
 */
const RELAXED = { relaxed: true };

/** The SQL of the webhook outbox (`memory_webhook_delivery`). */
@Injectable()
export class WebhookOutboxRepository {
  constructor(private readonly store: IngestionStore) {}

  /** Deliveries waiting or retrying, all replicas' and organizations'. */
  async depth(): Promise<number> {
    const [{ n }] = await this.store.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM memory_webhook_delivery');
    return Number(n);
  }

  /** Deliveries to receivers the operator removed have nowhere to go. */
  async keepOnly(urls: string[]): Promise<void> {
    await this.store.transaction((q) =>
      urls.length ? q(`DELETE FROM memory_webhook_delivery WHERE url NOT IN (${placeholders(urls)}) RETURNING id`, urls) : q('DELETE FROM memory_webhook_delivery RETURNING id'),
    );
  }

  /**
   * At start: one process owns a SQLite file, so the leases and retry waits of its previous run are
   * over and everything is tried again now. (On PostgreSQL other replicas may hold them.)
   */
  async endPreviousRun(now: number): Promise<void> {
    if (this.store.dialect === 'postgres') return;
    await this.store.transaction((q) => q('UPDATE memory_webhook_delivery SET due_at = ? WHERE due_at > ? RETURNING id', [now, now]));
  }

  /** An organization's first 100 deliveries (oldest first) and their count, those naming a document when given. */
  async page(org: string, documentId?: string): Promise<{ rows: OutboxRow[]; total: number }> {
    const where = `WHERE org_id = ?${documentId ? " AND body LIKE ? ESCAPE '!'" : ''}`;
    const params = [org, ...(documentId ? [`%"id":${JSON.stringify(documentId).replace(/[!%_]/g, '!$&')}%`] : [])];
    const [rows, [{ n }]] = await Promise.all([
      this.store.query<OutboxRow>(`SELECT id, url, body, attempts, due_at, last_error, created_at FROM memory_webhook_delivery ${where} ORDER BY created_at ASC LIMIT 100`, params),
      this.store.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM memory_webhook_delivery ${where}`, params),
    ]);
    return { rows, total: Number(n) };
  }

  /**
   * Stores deliveries in one transaction; past `limit` per receiver the oldest go (a receiver gone
   * for good must not grow the table forever). Answers how many each receiver lost that way.
   */
  async insert(rows: PendingDelivery[], limit: number): Promise<Map<string, number>> {
    return this.store.transaction(async (q) => {
      for (const slice of slices(rows, 100)) {
        await q(
          `INSERT INTO memory_webhook_delivery (id, org_id, url, body, attempts, due_at, last_error, created_at) VALUES ${slice.map(() => '(?, ?, ?, ?, 0, ?, NULL, ?)').join(', ')}`,
          slice.flatMap((r) => [r.id, r.orgId, r.url, r.body, r.createdAt, r.createdAt]),
        );
      }
      const dropped = new Map<string, number>();
      for (const url of new Set(rows.map((r) => r.url))) {
        const excess = await this.bound(q, url, limit);
        if (excess > 0) dropped.set(url, excess);
      }
      return dropped;
    });
  }

  private async bound(q: Query, url: string, limit: number): Promise<number> {
    const [{ n }] = await q<{ n: number | string }>('SELECT COUNT(*) AS n FROM memory_webhook_delivery WHERE url = ?', [url]);
    const excess = Number(n) - limit;
    if (excess > 0) await q('DELETE FROM memory_webhook_delivery WHERE id IN (SELECT id FROM memory_webhook_delivery WHERE url = ? ORDER BY created_at, id LIMIT ?)', [url, excess]);
    return excess;
  }

  /** When the next delivery to one of these receivers is due (undefined: none waits). */
  async nextDue(urls: string[]): Promise<number | undefined> {
    if (!urls.length) return undefined;
    const [row] = await this.store.query<{ due: number | string | null }>(`SELECT MIN(due_at) AS due FROM memory_webhook_delivery WHERE url IN (${placeholders(urls)})`, urls);
    return row?.due === null || row?.due === undefined ? undefined : Number(row.due);
  }

  /** Up to `limit` due deliveries to a receiver, each counted as attempted and leased until `leaseUntil` (SKIP LOCKED on PostgreSQL: replicas never claim one twice). */
  claim(url: string, limit: number, now: number, leaseUntil: number): Promise<ClaimedDelivery[]> {
    const skip = this.store.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    return this.store.transaction(
      (q) =>
        q<ClaimedDelivery>(
          `UPDATE memory_webhook_delivery SET attempts = attempts + 1, due_at = ?
           WHERE id IN (SELECT id FROM memory_webhook_delivery WHERE url = ? AND due_at <= ? ORDER BY due_at, created_at LIMIT ?${skip})
           RETURNING id, url, body, attempts`,
          [leaseUntil, url, now, limit],
        ),
      RELAXED,
    );
  }

  /** Delivered, or given up. */
  async remove(id: string): Promise<void> {
    await this.store.transaction((q) => q('DELETE FROM memory_webhook_delivery WHERE id = ? RETURNING id', [id]), RELAXED);
  }

  async retryAt(id: string, dueAt: number, error: string): Promise<void> {
    await this.store.transaction((q) => q('UPDATE memory_webhook_delivery SET due_at = ?, last_error = ? WHERE id = ? RETURNING id', [dueAt, error, id]), RELAXED);
  }
}
