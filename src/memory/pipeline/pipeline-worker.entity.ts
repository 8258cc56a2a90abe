import { Entity, PrimaryColumn } from 'typeorm';
import { EpochColumn } from '../../common/columns';

/**
 * A live pipeline worker (one per process): it beats every few seconds, so the claims of a worker
 * that stopped beating (a `kill -9`, a lost machine) are taken over in seconds, not after a lease.
 */
@Entity('memory_worker')
export class PipelineWorkerBeat {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @EpochColumn({ name: 'beat_at' })
  beatAt!: number;
}
