import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochColumn } from '../../common/columns';

/**
 * The organization every memory row belongs to before any other exists: data written before
 * organizations, keys of `KEEL_API_KEYS`, and requests without a key on a server without keys. Its id
 * is the one `/v3/settings` has always answered (`orgId: "local"`).
 */
export const DEFAULT_ORG = 'local';

/** An organization: one memory space (documents, chunks, memories, settings, webhook deliveries) and its API keys. */
@Entity('memory_organization')
export class MemoryOrganization {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @EpochColumn({ name: 'created_at' })
  createdAt!: number;

  @EpochColumn({ name: 'updated_at' })
  updatedAt!: number;
}

/**
 * An API key of an organization. Only the SHA-256 digest of the key is stored (the key itself is
 * shown once, in the answer that creates it), with its first characters to tell keys apart.
 * Revoking a key deletes its row: every replica looks keys up in the database per request.
 */
@Entity('memory_api_key')
@Index('IDX_memory_api_key_org', ['orgId', 'createdAt'])
export class MemoryApiKey {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** The key's first characters (`keel_` and 8 more), shown in lists. */
  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  /** Hex SHA-256 of the whole key. */
  @Index('UQ_memory_api_key_digest', { unique: true })
  @Column({ type: 'varchar', length: 64 })
  digest!: string;

  @EpochColumn({ name: 'created_at' })
  createdAt!: number;

  @EpochColumn({ name: 'last_used_at', nullable: true })
  lastUsedAt!: number | null;
}
