import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochColumn, JsonColumn } from '../../common/columns';

/**
 * The organisation's settings (supermemory's `/v3/settings`), one row per organisation. NULL means
 * "not set" (the default applies), as the reference answers it.
 */
@Entity('organization_settings')
export class OrganizationSettings {
  @PrimaryColumn({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  /** Upper bound of a chunk in characters; NULL (or -1 sent by a client) is the pipeline's default. */
  @Column({ name: 'chunk_size', type: 'integer', nullable: true })
  chunkSize!: number | null;

  @Column({ name: 'should_llm_filter', type: 'boolean', nullable: true })
  shouldLLMFilter!: boolean | null;

  @Column({ name: 'filter_prompt', type: 'text', nullable: true })
  filterPrompt!: string | null;

  /** Name patterns (a string or a list of strings) a named document must match to be ingested. */
  @JsonColumn({ name: 'include_items' })
  includeItems!: string | string[] | null;

  @JsonColumn({ name: 'exclude_items' })
  excludeItems!: string | string[] | null;

  @Column({ name: 'github_client_id', type: 'text', nullable: true })
  githubClientId!: string | null;

  @Column({ name: 'github_client_secret', type: 'text', nullable: true })
  githubClientSecret!: string | null;

  @Column({ name: 'github_custom_key_enabled', type: 'boolean', nullable: true })
  githubCustomKeyEnabled!: boolean | null;

  @Column({ name: 'google_drive_client_id', type: 'text', nullable: true })
  googleDriveClientId!: string | null;

  @Column({ name: 'google_drive_client_secret', type: 'text', nullable: true })
  googleDriveClientSecret!: string | null;

  @Column({ name: 'google_drive_custom_key_enabled', type: 'boolean', nullable: true })
  googleDriveCustomKeyEnabled!: boolean | null;

  @Column({ name: 'notion_client_id', type: 'text', nullable: true })
  notionClientId!: string | null;

  @Column({ name: 'notion_client_secret', type: 'text', nullable: true })
  notionClientSecret!: string | null;

  @Column({ name: 'notion_custom_key_enabled', type: 'boolean', nullable: true })
  notionCustomKeyEnabled!: boolean | null;

  @Column({ name: 'onedrive_client_id', type: 'text', nullable: true })
  onedriveClientId!: string | null;

  @Column({ name: 'onedrive_client_secret', type: 'text', nullable: true })
  onedriveClientSecret!: string | null;

  @Column({ name: 'onedrive_custom_key_enabled', type: 'boolean', nullable: true })
  onedriveCustomKeyEnabled!: boolean | null;

  @EpochColumn({ name: 'updated_at' })
  updatedAt!: number;
}
