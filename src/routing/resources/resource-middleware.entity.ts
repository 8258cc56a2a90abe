import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '../timestamp-columns';
import { RoutingMiddleware } from '../definitions/middleware.entity';
import { RoutingResource } from './resource.entity';

/** A middleware attached to a resource; higher priority runs first. */
@Entity('resource_middlewares')
export class RoutingResourceMiddleware {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_resource_middlewares' })
  resource_id: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_resource_middlewares' })
  middleware_id: string;

  @Column({ type: 'integer', default: 200 })
  priority: number;

  @CreatedAtColumn()
  created_at?: Date;

  @ManyToOne(() => RoutingResource, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'resource_id', foreignKeyConstraintName: 'FK_resource_middlewares_resource' })
  resource?: RoutingResource;

  @ManyToOne(() => RoutingMiddleware, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'middleware_id', foreignKeyConstraintName: 'FK_resource_middlewares_middleware' })
  middleware?: RoutingMiddleware;
}
