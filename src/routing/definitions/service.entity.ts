import { Entity, PrimaryColumn } from 'typeorm';
import { TraefikDefinitionColumns } from './traefik-definition.columns';

/** A Traefik service definition (`services` table of middleware-manager v3). */
@Entity('services')
export class RoutingService extends TraefikDefinitionColumns {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_services' })
  id: string;
}
