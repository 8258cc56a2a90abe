import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, UpdatedAtColumn } from '../timestamp-columns';

export type ResourceStatus = 'active' | 'disabled';

/** A host routed by Traefik, discovered from the active data source (`resources` table). */
@Entity('resources')
export class RoutingResource {
  /** The data source's router name without its `@provider` suffix. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_resources' })
  id: string;

  @Column({ type: 'text' })
  host: string;

  /** The data source's service for this router. */
  @Column({ type: 'text' })
  service_id: string;

  @Column({ type: 'text' })
  org_id: string;

  @Column({ type: 'text' })
  site_id: string;

  @Column({ type: 'text', default: 'active' })
  status: ResourceStatus;

  /** Comma-separated HTTP entry points. */
  @Column({ type: 'text', nullable: true, default: 'websecure' })
  entrypoints: string | null;

  /** Comma-separated extra certificate domains (SANs). */
  @Column({ type: 'text', nullable: true, default: '' })
  tls_domains: string | null;

  @Column({ type: 'integer', nullable: true, default: 0 })
  tcp_enabled: number | null;

  @Column({ type: 'text', nullable: true, default: 'tcp' })
  tcp_entrypoints: string | null;

  @Column({ type: 'text', nullable: true, default: '' })
  tcp_sni_rule: string | null;

  /** JSON object text `{"Header":"value"}`, or ''. */
  @Column({ type: 'text', nullable: true, default: '' })
  custom_headers: string | null;

  @Column({ type: 'integer', nullable: true, default: 200 })
  router_priority: number | null;

  /** `pangolin` or `traefik`: the data source that reported the router. */
  @Column({ type: 'text', nullable: true, default: '' })
  source_type: string | null;

  @CreatedAtColumn()
  created_at?: Date;

  @UpdatedAtColumn()
  updated_at?: Date;
}
