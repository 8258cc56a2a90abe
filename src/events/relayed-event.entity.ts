import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { EpochColumn } from '../common/columns';

/**
 * Events too large for a NOTIFY payload (8000 bytes) travel through this table: the NOTIFY
 * carries the row id, `envelope` the relay message (the event, or a streamed part's delta).
 * Rows are short-lived and swept by EventRelay.
 */
@Entity('relayed_event')
export class RelayedEventEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'text' })
  envelope: string;

  @Index('idx_relayed_event_created')
  @EpochColumn({ name: 'created_at' })
  createdAt: number;
}
