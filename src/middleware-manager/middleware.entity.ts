import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, UpdatedAtColumn } from './timestamp-columns';

/** A Traefik HTTP middleware definition (`middlewares` table of middleware-manager v3). */
@Entity('middlewares')
export class RoutingMiddleware {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_middlewares' })
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
