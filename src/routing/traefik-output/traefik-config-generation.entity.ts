import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One generation of the Traefik configuration that changed something (`traefik_config_history`). */
@Entity('traefik_config_history')
export class TraefikConfigGeneration {
  @PrimaryGeneratedColumn({ type: 'integer', primaryKeyConstraintName: 'PK_traefik_config_history' })
  id: number;

  @Index('IDX_traefik_config_history_created_at')
  @Column({ type: Date })
  created_at: Date;

  /** What caused it: the routing events of the burst (`resource.updated 1-app-router`, …), or `start`. */
  @Column({ type: 'text' })
  trigger: string;

  /** The whole document as YAML (what `/api/traefik-config` served then). */
  @Column({ type: 'text' })
  document: string;

  /** Unified diff against the previous generation ('' for the first one kept). */
  @Column({ type: 'text' })
  diff: string;

  @Column({ type: 'integer' })
  added: number;

  @Column({ type: 'integer' })
  removed: number;
}
