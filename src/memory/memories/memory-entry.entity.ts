import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochColumn, JsonColumn } from '../../common/columns';
import type { Metadata } from '../documents/memory-document.entity';

export type MemoryRelation = 'updates' | 'extends' | 'derives';

/** One atomic fact. Versions form a chain (parent → root); only the newest has `isLatest`. */
@Entity('memory_entry')
@Index('IDX_memory_entry_tag_key', ['orgId', 'containerTag', 'factKey', 'isLatest'])
@Index('IDX_memory_entry_document', ['documentId'])
@Index('IDX_memory_entry_root', ['rootMemoryId'])
export class MemoryEntry {
  @PrimaryColumn({ type: 'varchar', length: 22 })
  id!: string;

  /** The organization the memory belongs to (memory/organizations). */
  @Column({ name: 'org_id', type: 'varchar', length: 64, default: 'local' })
  orgId!: string;

  @Column({ type: 'text' })
  memory!: string;

  @Column({ name: 'container_tag', type: 'varchar', length: 100 })
  containerTag!: string;

  /** Normalised subject of the fact: a newer fact with the same key updates the older one. */
  @Column({ name: 'fact_key', type: 'varchar', length: 200 })
  factKey!: string;

  @Column({ name: 'document_id', type: 'varchar', length: 22, nullable: true })
  documentId!: string | null;

  @Column({ type: 'integer', default: 1 })
  version!: number;

  @Column({ name: 'is_latest', type: 'boolean', default: true })
  isLatest!: boolean;

  @Column({ name: 'is_forgotten', type: 'boolean', default: false })
  isForgotten!: boolean;

  @Column({ name: 'is_static', type: 'boolean', default: false })
  isStatic!: boolean;

  @Column({ name: 'is_inference', type: 'boolean', default: false })
  isInference!: boolean;

  @Column({ name: 'parent_memory_id', type: 'varchar', length: 22, nullable: true })
  parentMemoryId!: string | null;

  @Column({ name: 'root_memory_id', type: 'varchar', length: 22, nullable: true })
  rootMemoryId!: string | null;

  /** How this version relates to its parent. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  relation!: MemoryRelation | null;

  @Column({ name: 'source_count', type: 'integer', default: 1 })
  sourceCount!: number;

  @JsonColumn()
  metadata!: Metadata | undefined;

  @EpochColumn({ name: 'forget_after', nullable: true })
  forgetAfter!: number | null;

  @Column({ name: 'forget_reason', type: 'text', nullable: true })
  forgetReason!: string | null;

  @EpochColumn({ name: 'created_at' })
  createdAt!: number;

  @EpochColumn({ name: 'updated_at' })
  updatedAt!: number;
}
