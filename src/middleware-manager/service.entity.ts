import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, UpdatedAtColumn } from './timestamp-columns';

/** A Traefik service definition (`services` table of middleware-manager v3). */
@Entity('services')
export class RoutingService {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_services' })
  id: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  type: string;

  /** JSON object text: the body that goes under the type key. */
  @Column({ type: 'text' })
  config: string;

  @CreatedAtColumn()
  created_at?: Date;

  @UpdatedAtColumn()
  updated_at?: Date;
}
