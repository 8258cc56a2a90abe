import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochColumn } from '../../common/columns';

/**
 * One webhook delivery not yet accepted (the outbox): the row outlives a slow or down receiver
 * and a restart, and is deleted once the receiver answers 2xx or the attempts run out.
 */
@Entity('memory_webhook_delivery')
@Index('IDX_memory_webhook_delivery_due', ['url', 'dueAt'])
@Index('IDX_memory_webhook_delivery_org', ['orgId', 'createdAt'])
export class WebhookDelivery {
  /** Also the `x-keel-delivery` header, the same on every attempt. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** The organization of the document the event is about: its keys alone see the delivery in the outbox. */
  @Column({ name: 'org_id', type: 'varchar', length: 64, default: 'local' })
  orgId!: string;

  @Column({ type: 'text' })
  url!: string;

  /** The exact bytes sent and signed, so every attempt carries the same signature. */
  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** When the next attempt may start; while one is in flight, the lease after which another may. */
  @EpochColumn({ name: 'due_at' })
  dueAt!: number;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @EpochColumn({ name: 'created_at' })
  createdAt!: number;
}
