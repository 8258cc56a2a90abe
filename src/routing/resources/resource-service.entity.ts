import { Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '../timestamp-columns';
import { RoutingResource } from './resource.entity';
import { RoutingService } from '../definitions/service.entity';

/** The custom service that replaces a resource's data-source service (one per resource, enforced by the API). */
@Entity('resource_services')
export class RoutingResourceService {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_resource_services' })
  resource_id: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_resource_services' })
  service_id: string;

  @CreatedAtColumn()
  created_at?: Date;

  @ManyToOne(() => RoutingResource, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'resource_id', foreignKeyConstraintName: 'FK_resource_services_resource' })
  resource?: RoutingResource;

  @ManyToOne(() => RoutingService, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'service_id', foreignKeyConstraintName: 'FK_resource_services_service' })
  service?: RoutingService;
}
