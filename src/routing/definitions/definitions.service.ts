import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityTarget } from 'typeorm';
import { ConflictError, NotFoundError } from '../../common/errors';
import { canonical, parseJsonObject } from '../json-text';
import { RoutingMiddleware } from './middleware.entity';
import { SaveDefinitionDto } from './dto/save-definition.dto';
import { RoutingResourceMiddleware } from '../resources/resource-middleware.entity';
import { RoutingResourceService } from '../resources/resource-service.entity';
import { RoutingEvents } from '../routing-events';
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

export interface DefinitionView {
  id: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
}

export function definitionView(row: {
  id: string;
  name: string;
  type: string;
  config: string;
}): DefinitionView {
  return { id: row.id, name: row.name, type: row.type, config: parseJsonObject(row.config) };
}

/** 16 lowercase hex chars, as middleware-manager generates ids. */
function newDefinitionId(): string {
  return randomBytes(8).toString('hex');
}

/** `/api/middlewares` and `/api/services`: CRUD with Traefik-level validation of each config. */
@Injectable()
export class DefinitionsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly events: RoutingEvents,
  ) {}

  async list(kind: DefinitionKind): Promise<DefinitionView[]> {
    const rows = await this.db.getRepository(kind.entity).find({ order: { name: 'ASC', id: 'ASC' } });
    return rows.map(definitionView);
  }

  async get(kind: DefinitionKind, id: string): Promise<DefinitionView> {
    const row = await this.db.getRepository(kind.entity).findOne({ where: { id } });
    if (!row) throw new NotFoundError(`${kind.label} not found`);
    return definitionView(row);
  }

  /** A checked `{name, type, config}` as stored: the config is canonical JSON. */
  private static values({ name, type, config }: SaveDefinitionDto): {
    name: string;
    type: string;
    config: string;
  } {
    return { name, type, config: JSON.stringify(canonical(config)) };
  }

  async create(kind: DefinitionKind, body: SaveDefinitionDto): Promise<DefinitionView> {
    const values = DefinitionsService.values(body);
    const row = { id: newDefinitionId(), ...values };
    await this.db.getRepository(kind.entity).insert(row);
    const view = definitionView(row);
    this.events.publish(`${kind.subject}.created`, { [kind.subject]: view });
    return view;
  }

  async update(kind: DefinitionKind, id: string, body: SaveDefinitionDto): Promise<DefinitionView> {
    const values = DefinitionsService.values(body);
    const result = await this.db
      .createQueryBuilder()
      .update(kind.entity)
      .set({ ...values, updated_at: () => 'CURRENT_TIMESTAMP' })
      .where('id = :id', { id })
      .execute();
    if (!result.affected) throw new NotFoundError(`${kind.label} not found`);
    const view = definitionView({ id, ...values });
    this.events.publish(`${kind.subject}.updated`, { [kind.subject]: view });
    return view;
  }

  /** Refused with 409 while any resource (active or disabled) uses it. */
  async remove(kind: DefinitionKind, id: string): Promise<{ message: string }> {
    await this.db.transaction(async (manager) => {
      const exists = await manager.getRepository(kind.entity).exists({ where: { id } });
      if (!exists) throw new NotFoundError(`${kind.label} not found`);
      const uses = await manager.getRepository(kind.link).count({ where: { [kind.linkColumn]: id } });
      if (uses > 0) {
        throw new ConflictError(
          `Cannot delete ${kind.subject} because it is used by ${uses} resource${uses === 1 ? '' : 's'}`,
        );
      }
      await manager.getRepository(kind.entity).delete({ id });
    });
    this.events.publish(`${kind.subject}.deleted`, { id });
    return { message: `${kind.label} deleted successfully` };
  }
}
