import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityTarget, In } from 'typeorm';
import { RoutingMiddleware } from './middleware.entity';
import { RoutingResourceMiddleware } from '../resources/resource-middleware.entity';
import { RoutingResourceService } from '../resources/resource-service.entity';
import { RoutingService } from './service.entity';

/** What middlewares and services have in common: a typed Traefik object with a JSON config. */
export interface DefinitionKind {
  /** `middleware` / `service`: event subject and message wording. */
  subject: 'middleware' | 'service';
  label: string;
  entity: EntityTarget<RoutingMiddleware | RoutingService>;
  link: EntityTarget<RoutingResourceMiddleware | RoutingResourceService>;
  linkColumn: 'middleware_id' | 'service_id';
}

export const MIDDLEWARE_KIND: DefinitionKind = {
  subject: 'middleware',
  label: 'Middleware',
  entity: RoutingMiddleware,
  link: RoutingResourceMiddleware,
  linkColumn: 'middleware_id',
};

export const SERVICE_KIND: DefinitionKind = {
  subject: 'service',
  label: 'Service',
  entity: RoutingService,
  link: RoutingResourceService,
  linkColumn: 'service_id',
};

export interface DefinitionRow {
  id: string;
  name: string;
  type: string;
  config: string;
}

/** The queries of `middlewares` and `services`; `manager` is the caller's transaction, when it has one. */
@Injectable()
export class DefinitionRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  list(kind: DefinitionKind): Promise<DefinitionRow[]> {
    return this.db.getRepository(kind.entity).find({ order: { name: 'ASC', id: 'ASC' } });
  }

  find(kind: DefinitionKind, id: string): Promise<DefinitionRow | null> {
    return this.db.getRepository(kind.entity).findOne({ where: { id } });
  }

  exists(kind: DefinitionKind, id: string, manager = this.db.manager): Promise<boolean> {
    return manager.getRepository(kind.entity).existsBy({ id });
  }

  /** Which of `ids` exist. */
  async existing(kind: DefinitionKind, ids: string[], manager = this.db.manager): Promise<Set<string>> {
    const rows = await manager
      .getRepository(kind.entity)
      .find({ select: { id: true }, where: { id: In(ids) } });
    return new Set(rows.map((row) => row.id));
  }

  async insert(kind: DefinitionKind, row: DefinitionRow): Promise<void> {
    await this.db.getRepository(kind.entity).insert(row);
  }

  /** Whether a row had this id. */
  async update(kind: DefinitionKind, id: string, values: Omit<DefinitionRow, 'id'>): Promise<boolean> {
    const result = await this.db
      .createQueryBuilder()
      .update(kind.entity)
      .set({ ...values, updated_at: () => 'CURRENT_TIMESTAMP' })
      .where('id = :id', { id })
      .execute();
    return !!result.affected;
  }

  /** How many resources (active or disabled) use it. */
  uses(kind: DefinitionKind, id: string, manager: EntityManager): Promise<number> {
    return manager.getRepository(kind.link).count({ where: { [kind.linkColumn]: id } });
  }

  async delete(kind: DefinitionKind, id: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(kind.entity).delete({ id });
  }
}
