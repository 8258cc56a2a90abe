import { Entity, PrimaryColumn } from 'typeorm';
import { TraefikDefinitionColumns } from './traefik-definition.columns';

/** A Traefik HTTP middleware definition (`middlewares` table of middleware-manager v3). */
@Entity('middlewares')
export class RoutingMiddleware extends TraefikDefinitionColumns {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_middlewares' })
  id: string;
}
