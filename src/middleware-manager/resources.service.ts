import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { BadRequestError, NotFoundError } from '../common/errors';
import { definitionView, DefinitionView } from './definitions.service';
import { parseJsonObject } from './json-text';
import { RoutingMiddleware } from './middleware.entity';
import { RequestBody } from './request-body';
import { RoutingResourceMiddleware } from './resource-middleware.entity';
import { RoutingResourceService } from './resource-service.entity';
import { RoutingResource, ResourceStatus } from './resource.entity';
import { RoutingEvents } from './routing-events';
import { RoutingService } from './service.entity';

export const DEFAULT_LINK_PRIORITY = 200;
export const DEFAULT_ROUTER_PRIORITY = 200;
const MAX_PRIORITY = 2_147_483_647;
const ENTRYPOINT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const DOMAIN = /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface AssignedMiddleware {
  id: string;
  name: string;
  priority: number;
}

/** v3's resource object, plus structured fields beside the v3 strings. */
export interface ResourceView {
  id: string;
  host: string;
  service_id: string;
  org_id: string;
  site_id: string;
  status: string;
  entrypoints: string;
  tls_domains: string;
  tcp_enabled: boolean;
  tcp_entrypoints: string;
  tcp_sni_rule: string;
  custom_headers: string;
  router_priority: number;
  source_type: string;
  /** v3 summary `id:name:priority,…`, highest priority first. */
  middlewares: string;
  assigned_middlewares: AssignedMiddleware[];
  custom_headers_map: Record<string, unknown>;
  assigned_service: { id: string; name: string; type: string } | null;
}

/** Middlewares in execution order: higher priority first, ties by id. */
export function byExecutionOrder<T extends { priority: number; id: string }>(a: T, b: T): number {
  return b.priority - a.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/** `/api/resources`: resources come from the data source; the API assigns and configures them. */
@Injectable()
export class ResourcesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly events: RoutingEvents,
  ) {}

  private async views(where?: { id?: string; status?: ResourceStatus }): Promise<ResourceView[]> {
    const resources = await this.db
      .getRepository(RoutingResource)
      .find({ where: where ?? {}, order: { id: 'ASC' } });
    if (resources.length === 0) return [];
    const single = where?.id !== undefined;
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
    if (single) {
      links.where('rm.resource_id = :id', { id: where.id });
      serviceLinks.where('rs.resource_id = :id', { id: where.id });
    }
    const [linkRows, serviceRows] = await Promise.all([
      links.getRawMany<{ resource_id: string; id: string; name: string; priority: number | string }>(),
      serviceLinks.getRawMany<{ resource_id: string; id: string; name: string; type: string }>(),
    ]);
    const byResource = new Map<string, AssignedMiddleware[]>();
    for (const row of linkRows) {
      const list = byResource.get(row.resource_id) ?? [];
      list.push({ id: row.id, name: row.name, priority: Number(row.priority) });
      byResource.set(row.resource_id, list);
    }
    const services = new Map<string, { id: string; name: string; type: string }>();
    for (const row of serviceRows.sort((a, b) => (a.id < b.id ? -1 : 1))) {
      if (!services.has(row.resource_id))
        services.set(row.resource_id, { id: row.id, name: row.name, type: row.type });
    }
    return resources.map((r) => {
      const assigned = (byResource.get(r.id) ?? []).sort(byExecutionOrder);
      return {
        id: r.id,
        host: r.host,
        service_id: r.service_id,
        org_id: r.org_id,
        site_id: r.site_id,
        status: r.status,
        entrypoints: r.entrypoints ?? 'websecure',
        tls_domains: r.tls_domains ?? '',
        tcp_enabled: Number(r.tcp_enabled ?? 0) !== 0,
        tcp_entrypoints: r.tcp_entrypoints ?? 'tcp',
        tcp_sni_rule: r.tcp_sni_rule ?? '',
        custom_headers: r.custom_headers ?? '',
        router_priority: r.router_priority ?? DEFAULT_ROUTER_PRIORITY,
        source_type: r.source_type ?? '',
        middlewares: assigned.map((m) => `${m.id}:${m.name}:${m.priority}`).join(','),
        assigned_middlewares: assigned,
        custom_headers_map: parseJsonObject(r.custom_headers),
        assigned_service: services.get(r.id) ?? null,
      };
    });
  }

  /** All resources (v3), or those of one status (`?status=active|disabled|all`). */
  async list(status?: string): Promise<ResourceView[]> {
    if (status !== undefined && !['active', 'disabled', 'all'].includes(status)) {
      const request = new RequestBody({});
      request.reject(['status'], 'must be one of active, disabled, all');
      request.done();
    }
    return this.views(status && status !== 'all' ? { status: status as ResourceStatus } : undefined);
  }

  async get(id: string): Promise<ResourceView> {
    const [view] = await this.views({ id });
    if (!view) throw new NotFoundError(`Resource not found: ${id}`);
    return view;
  }

  private async find(manager: EntityManager, id: string): Promise<RoutingResource> {
    const resource = await manager.getRepository(RoutingResource).findOne({ where: { id } });
    if (!resource) throw new NotFoundError(`Resource not found: ${id}`);
    return resource;
  }

  /** Every mutation of a disabled resource is refused (v3 wording per action). */
  private async findActive(manager: EntityManager, id: string, refusal: string): Promise<RoutingResource> {
    const resource = await this.find(manager, id);
    if (resource.status === 'disabled') throw new BadRequestError(refusal);
    return resource;
  }

  private changed(id: string, change: string): void {
    this.events.publish('resource.updated', { id, change });
  }

  async remove(id: string): Promise<{ message: string }> {
    await this.db.transaction(async (manager) => {
      const resource = await this.find(manager, id);
      if (resource.status !== 'disabled') throw new BadRequestError('Only disabled resources can be deleted');
      // The foreign keys cascade; explicit deletes also clean databases adopted without them.
      await manager.getRepository(RoutingResourceMiddleware).delete({ resource_id: id });
      await manager.getRepository(RoutingResourceService).delete({ resource_id: id });
      await manager.getRepository(RoutingResource).delete({ id });
    });
    this.events.publish('resource.deleted', { id });
    return { message: 'Resource deleted successfully' };
  }

  private linkPriority(request: RequestBody, field = 'priority'): number {
    const priority = request.optionalInteger(field);
    if (priority !== undefined && priority > MAX_PRIORITY)
      request.reject([field], `must be at most ${MAX_PRIORITY}`);
    return priority === undefined || priority <= 0 ? DEFAULT_LINK_PRIORITY : priority;
  }

  async assignMiddleware(
    id: string,
    body: unknown,
  ): Promise<{ resource_id: string; middleware_id: string; priority: number }> {
    const request = new RequestBody(body);
    const middlewareId = request.requiredString('middleware_id');
    const priority = this.linkPriority(request);
    request.done();
    await this.db.transaction(async (manager) => {
      await this.findActive(manager, id, 'Cannot assign middleware to a disabled resource');
      if (!(await manager.getRepository(RoutingMiddleware).existsBy({ id: middlewareId })))
        throw new NotFoundError('Middleware not found');
      await manager
        .getRepository(RoutingResourceMiddleware)
        .upsert({ resource_id: id, middleware_id: middlewareId, priority }, ['resource_id', 'middleware_id']);
    });
    this.changed(id, 'middlewares');
    return { resource_id: id, middleware_id: middlewareId, priority };
  }

  /** Unknown middleware ids are skipped as in v3, and listed in `skipped`. */
  async assignMiddlewares(
    id: string,
    body: unknown,
  ): Promise<{
    resource_id: string;
    middlewares: { middleware_id: string; priority: number }[];
    skipped: string[];
  }> {
    const request = new RequestBody(body);
    const entries = request.requiredArray('middlewares').map((entry, index) => {
      const item = new RequestBody(entry, ['middlewares', index]);
      const parsed = {
        middleware_id: item.requiredString('middleware_id'),
        priority: this.linkPriority(item),
      };
      request.issues.push(...item.issues);
      return parsed;
    });
    request.done();
    const assigned: { middleware_id: string; priority: number }[] = [];
    const skipped: string[] = [];
    await this.db.transaction(async (manager) => {
      await this.findActive(manager, id, 'Cannot assign middleware to a disabled resource');
      const links = manager.getRepository(RoutingResourceMiddleware);
      for (const entry of entries) {
        if (!(await manager.getRepository(RoutingMiddleware).existsBy({ id: entry.middleware_id }))) {
          skipped.push(entry.middleware_id);
          continue;
        }
        await links.upsert({ resource_id: id, ...entry }, ['resource_id', 'middleware_id']);
        assigned.push(entry);
      }
    });
    this.changed(id, 'middlewares');
    return { resource_id: id, middlewares: assigned, skipped };
  }

  async removeMiddleware(id: string, middlewareId: string): Promise<{ message: string }> {
    await this.db.transaction(async (manager) => {
      await this.findActive(manager, id, 'Cannot remove middleware from a disabled resource');
      const result = await manager
        .getRepository(RoutingResourceMiddleware)
        .delete({ resource_id: id, middleware_id: middlewareId });
      if (!result.affected) throw new NotFoundError('Resource middleware relationship not found');
    });
    this.changed(id, 'middlewares');
    return { message: 'Middleware removed from resource successfully' };
  }

  async getService(id: string): Promise<{ resource_id: string; service: DefinitionView }> {
    await this.find(this.db.manager, id);
    const link = await this.db
      .getRepository(RoutingResourceService)
      .findOne({ where: { resource_id: id }, order: { service_id: 'ASC' } });
    if (!link) throw new NotFoundError('No service assigned to this resource');
    const service = await this.db.getRepository(RoutingService).findOne({ where: { id: link.service_id } });
    if (!service) throw new NotFoundError('Service not found');
    return { resource_id: id, service: definitionView(service) };
  }

  /** One service per resource: assigning replaces the previous one. */
  async assignService(id: string, body: unknown): Promise<{ resource_id: string; service_id: string }> {
    const request = new RequestBody(body);
    const serviceId = request.requiredString('service_id');
    request.done();
    await this.db.transaction(async (manager) => {
      await this.findActive(manager, id, 'Cannot assign service to a disabled resource');
      if (!(await manager.getRepository(RoutingService).existsBy({ id: serviceId })))
        throw new NotFoundError('Service not found');
      await manager.getRepository(RoutingResourceService).delete({ resource_id: id });
      await manager.getRepository(RoutingResourceService).insert({ resource_id: id, service_id: serviceId });
    });
    this.changed(id, 'service');
    return { resource_id: id, service_id: serviceId };
  }

  async removeService(id: string): Promise<{ message: string }> {
    await this.db.transaction(async (manager) => {
      await this.findActive(manager, id, 'Cannot remove service from a disabled resource');
      const result = await manager.getRepository(RoutingResourceService).delete({ resource_id: id });
      if (!result.affected) throw new NotFoundError('Resource service relationship not found');
    });
    this.changed(id, 'service');
    return { message: 'Service removed from resource successfully' };
  }

  /** Validated router settings, written to an active resource. */
  private async updateRouter(id: string, values: Partial<RoutingResource>, change: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      await this.findActive(manager, id, 'Cannot update a disabled resource');
      await manager
        .createQueryBuilder()
        .update(RoutingResource)
        .set({ ...values, updated_at: () => 'CURRENT_TIMESTAMP' })
        .where('id = :id', { id })
        .execute();
    });
    this.changed(id, change);
  }

  private entrypointList(request: RequestBody, field: string, fallback: string): string {
    const entries = splitList(request.optionalString(field) ?? '');
    const bad = entries.find((e) => !ENTRYPOINT.test(e));
    if (bad !== undefined) request.reject([field], `"${bad}" is not a valid entry point name`);
    return entries.length ? entries.join(',') : fallback;
  }

  async updateHttp(id: string, body: unknown): Promise<{ id: string; entrypoints: string }> {
    const request = new RequestBody(body);
    const entrypoints = this.entrypointList(request, 'entrypoints', 'websecure');
    request.done();
    await this.updateRouter(id, { entrypoints }, 'http');
    return { id, entrypoints };
  }

  async updateTls(id: string, body: unknown): Promise<{ id: string; tls_domains: string }> {
    const request = new RequestBody(body);
    const domains = splitList(request.optionalString('tls_domains') ?? '');
    const bad = domains.find((d) => !DOMAIN.test(d));
    if (bad !== undefined) request.reject(['tls_domains'], `"${bad}" is not a valid domain name`);
    request.done();
    const tls_domains = domains.join(',');
    await this.updateRouter(id, { tls_domains }, 'tls');
    return { id, tls_domains };
  }

  async updateTcp(
    id: string,
    body: unknown,
  ): Promise<{ id: string; tcp_enabled: boolean; tcp_entrypoints: string; tcp_sni_rule: string }> {
    const request = new RequestBody(body);
    const enabled = request.requiredBoolean('tcp_enabled');
    const tcp_entrypoints = this.entrypointList(request, 'tcp_entrypoints', 'tcp');
    const tcp_sni_rule = (request.optionalString('tcp_sni_rule') ?? '').trim();
    if (tcp_sni_rule && !/^HostSNI(Regexp)?\(/.test(tcp_sni_rule))
      request.reject(['tcp_sni_rule'], 'must start with HostSNI(…) or HostSNIRegexp(…)');
    request.done();
    await this.updateRouter(id, { tcp_enabled: enabled ? 1 : 0, tcp_entrypoints, tcp_sni_rule }, 'tcp');
    return { id, tcp_enabled: enabled, tcp_entrypoints, tcp_sni_rule };
  }

  async updateHeaders(
    id: string,
    body: unknown,
  ): Promise<{ id: string; custom_headers: Record<string, string> }> {
    const request = new RequestBody(body);
    const headers = request.requiredObject('custom_headers');
    for (const [name, value] of Object.entries(headers)) {
      if (!HEADER_NAME.test(name)) request.reject(['custom_headers', name], 'is not a valid header name');
      else if (typeof value !== 'string') request.reject(['custom_headers', name], 'must be a string');
    }
    request.done();
    const text = Object.keys(headers).length ? JSON.stringify(headers) : '';
    await this.updateRouter(id, { custom_headers: text }, 'headers');
    return { id, custom_headers: headers as Record<string, string> };
  }

  async updatePriority(id: string, body: unknown): Promise<{ id: string; router_priority: number }> {
    const request = new RequestBody(body);
    const priority = request.optionalInteger('router_priority');
    if (priority === undefined && !request.issues.length)
      request.reject(['router_priority'], 'is required', 'required');
    else if (priority !== undefined && (priority < 1 || priority > MAX_PRIORITY)) {
      request.reject(['router_priority'], `must be between 1 and ${MAX_PRIORITY}`);
    }
    request.done();
    await this.updateRouter(id, { router_priority: priority }, 'priority');
    return { id, router_priority: priority! };
  }
}
