import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityTarget, In } from 'typeorm';
import { RoutingMiddleware } from '../definitions/middleware.entity';
import { RoutingService } from '../definitions/service.entity';
import type { RoutingSnapshot } from '../traefik-output/traefik-config.builder';
import { RoutingResourceMiddleware } from './resource-middleware.entity';
import { RoutingResourceService } from './resource-service.entity';
import { RoutingResource, ResourceStatus } from './resource.entity';

// Rows per INSERT: well under SQLite's and PostgreSQL's bound-parameter limits.
const INSERT_CHUNK = 200;

/** A resource with its middlewares (unordered) and its service (the lowest id when several are linked). */
export interface ResourceWithLinks {
  resource: RoutingResource;
  middlewares: { id: string; name: string; priority: number }[];
  service: { id: string; name: string; type: string } | null;
}

/** One resource (`id`), those of one status, or all. */
export type ResourceFilter = { id?: string; status?: ResourceStatus };

export type MiddlewareLink = Pick<RoutingResourceMiddleware, 'resource_id' | 'middleware_id' | 'priority'>;

/**
 * The queries of `resources` and their links to middlewares and services; `manager` is the
 * caller's transaction, when it has one.
 */
@Injectable()
export class ResourceRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** By id, or newest first. */
  async withLinks(where: ResourceFilter = {}, recentFirst = false): Promise<ResourceWithLinks[]> {
    const resources = await this.db.getRepository(RoutingResource).find({
      where,
      order: recentFirst ? { created_at: 'DESC', id: 'ASC' } : { id: 'ASC' },
    });
    if (resources.length === 0) return [];
    const links = this.db
      .getRepository(RoutingResourceMiddleware)
      .createQueryBuilder('rm')
      .innerJoin(RoutingMiddleware, 'm', 'm.id = rm.middleware_id')
      .select(['rm.resource_id AS resource_id', 'm.id AS id', 'm.name AS name', 'rm.priority AS priority']);
    const serviceLinks = this.db
      .getRepository(RoutingResourceService)
      .createQueryBuilder('rs')
      .innerJoin(RoutingService, 's', 's.id = rs.service_id')
      .select(['rs.resource_id AS resource_id', 's.id AS id', 's.name AS name', 's.type AS type']);
    if (where.id !== undefined) {
      links.where('rm.resource_id = :id', { id: where.id });
      serviceLinks.where('rs.resource_id = :id', { id: where.id });
    }
    const [linkRows, serviceRows] = await Promise.all([
      links.getRawMany<{ resource_id: string; id: string; name: string; priority: number | string }>(),
      serviceLinks.getRawMany<{ resource_id: string; id: string; name: string; type: string }>(),
    ]);
    const middlewares = new Map<string, ResourceWithLinks['middlewares']>();
    for (const row of linkRows) {
      const list = middlewares.get(row.resource_id) ?? [];
      list.push({ id: row.id, name: row.name, priority: Number(row.priority) });
      middlewares.set(row.resource_id, list);
    }
    const services = new Map<string, NonNullable<ResourceWithLinks['service']>>();
    for (const row of serviceRows.sort((a, b) => (a.id < b.id ? -1 : 1))) {
      if (!services.has(row.resource_id))
        services.set(row.resource_id, { id: row.id, name: row.name, type: row.type });
    }
    return resources.map((resource) => ({
      resource,
      middlewares: middlewares.get(resource.id) ?? [],
      service: services.get(resource.id) ?? null,
    }));
  }

  find(id: string, manager = this.db.manager): Promise<RoutingResource | null> {
    return manager.getRepository(RoutingResource).findOne({ where: { id } });
  }

  all(manager: EntityManager): Promise<RoutingResource[]> {
    return manager.getRepository(RoutingResource).find();
  }

  /** The active resources by host (Traefik's status page). */
  active(): Promise<RoutingResource[]> {
    return this.db
      .getRepository(RoutingResource)
      .find({ where: { status: 'active' }, order: { host: 'ASC' } });
  }

  /** What the Traefik configuration is built from: the active resources, every definition and link. */
  async snapshot(): Promise<RoutingSnapshot> {
    const [resources, middlewares, services, middlewareLinks, serviceLinks] = await Promise.all([
      this.db.getRepository(RoutingResource).find({ where: { status: 'active' } }),
      this.db.getRepository(RoutingMiddleware).find({ select: { id: true, type: true, config: true } }),
      this.db.getRepository(RoutingService).find({ select: { id: true, type: true, config: true } }),
      this.db
        .getRepository(RoutingResourceMiddleware)
        .find({ select: { resource_id: true, middleware_id: true, priority: true } }),
      this.db.getRepository(RoutingResourceService).find({ select: { resource_id: true, service_id: true } }),
    ]);
    return { resources, middlewares, services, middlewareLinks, serviceLinks };
  }

  /** Rows already there are skipped (another replica may have added the same router a moment ago). */
  async insertIgnoring(rows: Partial<RoutingResource>[], manager: EntityManager): Promise<void> {
    await this.insertInChunks(RoutingResource, rows, manager);
  }

  /** Links already there are kept as they are. */
  async linkMiddlewaresIgnoring(links: MiddlewareLink[], manager: EntityManager): Promise<void> {
    await this.insertInChunks(RoutingResourceMiddleware, links, manager);
  }

  /** Sets `values` on one resource or several, and stamps `updated_at`. */
  async update(
    ids: string | string[],
    values: Partial<RoutingResource>,
    manager: EntityManager,
  ): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(RoutingResource)
      .set({ ...values, updated_at: () => 'CURRENT_TIMESTAMP' })
      .where({ id: In(typeof ids === 'string' ? [ids] : ids) })
      .execute();
  }

  /** With its links (the foreign keys cascade; explicit deletes also clean databases adopted without them). */
  async delete(id: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(RoutingResourceMiddleware).delete({ resource_id: id });
    await manager.getRepository(RoutingResourceService).delete({ resource_id: id });
    await manager.getRepository(RoutingResource).delete({ id });
  }

  /** Adds the link, or sets its priority. */
  async linkMiddleware(link: MiddlewareLink, manager: EntityManager): Promise<void> {
    await manager.getRepository(RoutingResourceMiddleware).upsert(link, ['resource_id', 'middleware_id']);
  }

  /** Whether the link was there. */
  async unlinkMiddleware(id: string, middlewareId: string, manager: EntityManager): Promise<boolean> {
    const result = await manager
      .getRepository(RoutingResourceMiddleware)
      .delete({ resource_id: id, middleware_id: middlewareId });
    return !!result.affected;
  }

  /** The id of its service (the lowest when several are linked). */
  async serviceId(id: string): Promise<string | undefined> {
    const link = await this.db
      .getRepository(RoutingResourceService)
      .findOne({ where: { resource_id: id }, order: { service_id: 'ASC' } });
    return link?.service_id;
  }

  /** Replaces its service links with this one. */
  async setService(id: string, serviceId: string, manager: EntityManager): Promise<void> {
    await this.clearService(id, manager);
    await manager.getRepository(RoutingResourceService).insert({ resource_id: id, service_id: serviceId });
  }

  /** Whether it had a service. */
  async clearService(id: string, manager: EntityManager): Promise<boolean> {
    const result = await manager.getRepository(RoutingResourceService).delete({ resource_id: id });
    return !!result.affected;
  }

  private async insertInChunks(entity: EntityTarget<object>, rows: object[], manager: EntityManager) {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await manager
        .getRepository(entity)
        .createQueryBuilder()
        .insert()
        .orIgnore()
        .values(rows.slice(i, i + INSERT_CHUNK))
        .execute();
    }
  }
}
