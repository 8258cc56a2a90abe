import { Column } from 'typeorm';
import { CreatedAtColumn, UpdatedAtColumn } from '../timestamp-columns';

/** The columns `middlewares` and `services` share: a named, typed Traefik definition. */
export abstract class TraefikDefinitionColumns {
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
