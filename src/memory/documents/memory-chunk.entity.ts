import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { EpochColumn } from '../../common/columns';

/** A sentence-aligned slice of a document. The integer key doubles as the full-text index row id. */
@Entity('memory_chunk')
@Index('IDX_memory_chunk_document', ['documentId', 'position'])
export class MemoryChunk {
  @PrimaryGeneratedColumn('increment')
  id!: number;

  @Column({ name: 'document_id', type: 'varchar', length: 22 })
  documentId!: string;

  @Column({ type: 'integer' })
  position!: number;

  @Column({ type: 'text' })
  content!: string;

  @Column({ name: 'start_offset', type: 'integer' })
  startOffset!: number;

  @Column({ name: 'end_offset', type: 'integer' })
  endOffset!: number;

  /** JSON array of floats when an embedding provider is configured. */
  @Column({ type: 'text', nullable: true })
  embedding!: string | null;

  @EpochColumn({ name: 'created_at' })
  createdAt!: number;
}
