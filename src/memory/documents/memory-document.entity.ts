import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochColumn, JsonColumn } from '../../common/columns';

export const DOCUMENT_STATUSES = ['queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done', 'failed'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export type DreamingStatus = 'dreaming' | 'done';
export type MetadataValue = string | number | boolean | string[];
export type Metadata = Record<string, MetadataValue>;

/** The condition of the partial index of unfinished documents; queries must repeat it verbatim to use the index. */
export const UNFINISHED = "status NOT IN ('done', 'failed')";

/** A memory document. The row is also the pipeline job: `status` walks the stages, `leaseUntil` guards a claim. */
@Entity('memory_document')
@Index('IDX_memory_document_lease', ['leaseUntil'])
// Every read of the memory surface filters by organization first (memory/organizations).
@Index('IDX_memory_document_tag', ['orgId', 'containerTag', 'createdAt'])
// The documents list sorts by either timestamp and cuts a page: at 100,000 documents a sort of the
// whole table per page took most of the request.
@Index('IDX_memory_document_created', ['orgId', 'createdAt'])
@Index('IDX_memory_document_updated', ['orgId', 'updatedAt'])
// Only unfinished rows: `GET /v3/documents/processing`, which clients poll while they ingest, counts and
// lists them without touching finished ones.
@Index('IDX_memory_document_unfinished', ['orgId', 'createdAt'], { where: UNFINISHED })
// A customId names one document within its organization.
@Index('UQ_memory_document_custom_id', ['orgId', 'customId'], { unique: true })
// Only claimed rows: the sweep for claims of dead workers reads them alone.
@Index('IDX_memory_document_claimed_by', ['claimedBy'], { where: 'claimed_by IS NOT NULL' })
export class MemoryDocument {
  @PrimaryColumn({ type: 'varchar', length: 22 })
  id!: string;

  /** The organization the document belongs to (memory/organizations); its chunks belong to it too. */
  @Column({ name: 'org_id', type: 'varchar', length: 64, default: 'local' })
  orgId!: string;

  @Column({ name: 'custom_id', type: 'varchar', length: 255, nullable: true })
  customId!: string | null;

  /** What the caller sent (text, markdown, HTML, JSON, a URL, a rendered conversation). */
  @Column({ type: 'text', nullable: true })
  content!: string | null;

  /** Extracted plain text the chunks and memories come from. */
  @Column({ name: 'text_content', type: 'text', nullable: true })
  textContent!: string | null;

  /** Conversation messages, for turn-aware upserts. */
  @JsonColumn()
  raw!: unknown;

  @Column({ type: 'text', nullable: true })
  url!: string | null;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  @Column({ type: 'text', nullable: true })
  summary!: string | null;

  @Column({ type: 'varchar', length: 32, default: 'text' })
  type!: string;

  /** 'text' | 'url' | 'file' | 'conversation': how the content arrived. */
  @Column({ type: 'varchar', length: 16, default: 'text' })
  source!: string;

  @Column({ name: 'task_type', type: 'varchar', length: 16, default: 'memory' })
  taskType!: string;

  @Column({ type: 'varchar', length: 16, default: 'dynamic' })
  dreaming!: string;

  @Column({ type: 'varchar', length: 16, default: 'queued' })
  status!: DocumentStatus;

  @Column({ name: 'dreaming_status', type: 'varchar', length: 16, default: 'dreaming' })
  dreamingStatus!: DreamingStatus;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @JsonColumn()
  metadata!: Metadata | undefined;

  @Column({ name: 'container_tag', type: 'varchar', length: 100, nullable: true })
  containerTag!: string | null;

  @JsonColumn({ name: 'container_tags' })
  containerTags!: string[] | undefined;

  @Column({ name: 'entity_context', type: 'text', nullable: true })
  entityContext!: string | null;

  @JsonColumn({ name: 'filter_by_metadata' })
  filterByMetadata!: Metadata | undefined;

  @Column({ type: 'text', nullable: true })
  filepath!: string | null;

  @Column({ name: 'document_date', type: 'varchar', length: 64, nullable: true })
  documentDate!: string | null;

  /** Bumped by every content change; a worker only writes while the revision it claimed is current. */
  @Column({ type: 'integer', default: 0 })
  revision!: number;

  /**
   * Extractions of the current revision started so far, counted by the claim that starts each one, so an
   * extraction during which the process died still counts: past the limit the document fails instead of
   * taking the server down again at every restart.
   */
  @Column({ name: 'extract_attempts', type: 'integer', default: 0 })
  extractAttempts!: number;

  /** Characters of `textContent` already turned into memories (appends dream only what is new). */
  @Column({ name: 'dreamed_length', type: 'integer', default: 0 })
  dreamedLength!: number;

  @EpochColumn({ name: 'lease_until', nullable: true })
  leaseUntil!: number | null;

  /** The pipeline worker (process) holding the claim; NULL when the row is not claimed. */
  @Column({ name: 'claimed_by', type: 'varchar', length: 36, nullable: true })
  claimedBy!: string | null;

  @EpochColumn({ name: 'created_at' })
  createdAt!: number;

  @EpochColumn({ name: 'updated_at' })
  updatedAt!: number;
}

/** The uploaded bytes of a file document, kept in the database so any replica can process it. */
@Entity('memory_document_file')
export class MemoryDocumentFile {
  @PrimaryColumn({ name: 'document_id', type: 'varchar', length: 22 })
  documentId!: string;

  @Column({ name: 'file_name', type: 'text', nullable: true })
  fileName!: string | null;

  @Column({ name: 'mime_type', type: 'varchar', length: 255, nullable: true })
  mimeType!: string | null;

  @Column({ name: 'file_type', type: 'varchar', length: 32, nullable: true })
  fileType!: string | null;

  /** Base64: one text column type serves both dialects. */
  @Column({ type: 'text' })
  data!: string;
}
