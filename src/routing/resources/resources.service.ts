import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { BadRequestError, NotFoundError } from '../../common/errors';
import { ListResourcesQueryDto } from './dto/list-resources.dto';
import { ResourceDto } from './dto/resource.dto';
import { AssignMiddlewareDto, AssignMiddlewaresDto, AssignServiceDto } from './dto/assign-middleware.dto';
import {
  UpdateHeadersConfigDto,
  UpdateHttpConfigDto,
  UpdatePriorityConfigDto,
  UpdateTcpConfigDto,
  UpdateTlsConfigDto,
} from './dto/update-router.dto';
import { DefinitionRepository, MIDDLEWARE_KIND, SERVICE_KIND } from '../definitions/definition.repository';
import { definitionView } from '../definitions/definitions.service';
import { MessageDto } from '../definitions/dto/save-definition.dto';
import {
  HeadersConfigDto,
  HttpConfigDto,
  MiddlewareAssignedDto,
  MiddlewaresAssignedDto,
  PriorityConfigDto,
  ResourceServiceDto,
  ServiceAssignedDto,
  TcpConfigDto,
  TlsConfigDto,
} from '../dto/routing-responses.dto';
import { parseJsonObject } from '../json-text';
import { RoutingResource } from './resource.entity';
import { ResourceFilter, ResourceRepository } from './resource.repository';
import { RoutingEvents } from '../routing-events';
import { commaList } from '../../common/comma-list';

const DEFAULT_LINK_PRIORITY = 200;
export const DEFAULT_ROUTER_PRIORITY = 200;

/** By id (code-unit order). */
export function byId<T extends { id: string }>(a: T, b: T): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Middlewares in execution order: higher priority first, ties by id. */
export function byExecutionOrder<T extends { priority: number; id: string }>(a: T, b: T): number {
  return b.priority - a.priority || byId(a, b);
}

/** `/api/resources`: resources come from the data source; the API assigns and configures them. */
@Injectable()
export class ResourcesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly resources: ResourceRepository,
    private readonly definitions: DefinitionRepository,
    private readonly events: RoutingEvents,
  ) {}

  private async views(where?: ResourceFilter, recentFirst?: boolean): Promise<ResourceDto[]> {
    const rows = await this.resources.withLinks(where, recentFirst);
    return rows.map(({ resource: r, middlewares, service }) => {
      const assigned = middlewares.sort(byExecutionOrder);
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
        // Stored only after the headers rule (names and string values), so the map holds strings.
        custom_headers_map: parseJsonObject(r.custom_headers) as Record<string, string>,
        assigned_service: service,
      };
    });
  }

  /** All resources (v3), or those of one status (`?status=active|disabled|all`). */
  async list({ status, sort }: ListResourcesQueryDto): Promise<ResourceDto[]> {
    return this.views(status && status !== 'all' ? { status } : undefined, sort === 'recent');
  }

  async get(id: string): Promise<ResourceDto> {
    const [view] = await this.views({ id });
    if (!view) throw new NotFoundError(`Resource not found: ${id}`);
    return view;
  }

  private async find(manager: EntityManager, id: string): Promise<RoutingResource> {
    const resource = await this.resources.find(id, manager);
    if (!resource) throw new NotFoundError(`Resource not found: ${id}`);
    return resource;
  }

  /**
   * Changes an active resource in one transaction, then announces what changed. A disabled resource is
   * refused in v3's words for the action (`Cannot <action> a disabled resource`).
   */
  private async changeActive(
    id: string,
    change: string,
    action: string,
    work: (manager: EntityManager) => Promise<unknown>,
  ): Promise<void> {
    await this.db.transaction(async (manager) => {
      const resource = await this.find(manager, id);
      if (resource.status === 'disabled') throw new BadRequestError(`Cannot ${action} a disabled resource`);
      await work(manager);
    });
    this.events.publish('resource.updated', { id, change });
  }

  async remove(id: string): Promise<MessageDto> {
    await this.db.transaction(async (manager) => {
      const resource = await this.find(manager, id);
      if (resource.status !== 'disabled') throw new BadRequestError('Only disabled resources can be deleted');
      await this.resources.delete(id, manager);
    });
    this.events.publish('resource.deleted', { id });
    return { message: 'Resource deleted successfully' };
  }

  /** A link as stored: missing or ≤ 0 priority means the default. */
  private static link(entry: AssignMiddlewareDto): { middleware_id: string; priority: number } {
    const priority = entry.priority ?? 0;
    return { middleware_id: entry.middleware_id, priority: priority <= 0 ? DEFAULT_LINK_PRIORITY : priority };
  }

  async assignMiddleware(id: string, body: AssignMiddlewareDto): Promise<MiddlewareAssignedDto> {
    const { middleware_id, priority } = ResourcesService.link(body);
    await this.changeActive(id, 'middlewares', 'assign middleware to', async (manager) => {
      if (!(await this.definitions.exists(MIDDLEWARE_KIND, middleware_id, manager)))
        throw new NotFoundError('Middleware not found');
      await this.resources.linkMiddleware({ resource_id: id, middleware_id, priority }, manager);
    });
    return { resource_id: id, middleware_id, priority };
  }

  /** Unknown middleware ids are skipped as in v3, and listed in `skipped`. */
  async assignMiddlewares(id: string, body: AssignMiddlewaresDto): Promise<MiddlewaresAssignedDto> {
    const entries = body.middlewares.map((entry) => ResourcesService.link(entry));
    const assigned: { middleware_id: string; priority: number }[] = [];
    const skipped: string[] = [];
    await this.changeActive(id, 'middlewares', 'assign middleware to', async (manager) => {
      for (const entry of entries) {
        if (!(await this.definitions.exists(MIDDLEWARE_KIND, entry.middleware_id, manager))) {
          skipped.push(entry.middleware_id);
          continue;
        }
        await this.resources.linkMiddleware({ resource_id: id, ...entry }, manager);
        assigned.push(entry);
      }
    });
    return { resource_id: id, middlewares: assigned, skipped };
  }

  async removeMiddleware(id: string, middlewareId: string): Promise<MessageDto> {
    await this.changeActive(id, 'middlewares', 'remove middleware from', async (manager) => {
      if (!(await this.resources.unlinkMiddleware(id, middlewareId, manager)))
        throw new NotFoundError('Resource middleware relationship not found');
    });
    return { message: 'Middleware removed from resource successfully' };
  }

  async getService(id: string): Promise<ResourceServiceDto> {
    await this.find(this.db.manager, id);
    const serviceId = await this.resources.serviceId(id);
    if (serviceId === undefined) throw new NotFoundError('No service assigned to this resource');
    const service = await this.definitions.find(SERVICE_KIND, serviceId);
    if (!service) throw new NotFoundError('Service not found');
    return { resource_id: id, service: definitionView(service) };
  }

  /** One service per resource: assigning replaces the previous one. */
  async assignService(id: string, { service_id }: AssignServiceDto): Promise<ServiceAssignedDto> {
    await this.changeActive(id, 'service', 'assign service to', async (manager) => {
      if (!(await this.definitions.exists(SERVICE_KIND, service_id, manager)))
        throw new NotFoundError('Service not found');
      await this.resources.setService(id, service_id, manager);
    });
    return { resource_id: id, service_id };
  }

  async removeService(id: string): Promise<MessageDto> {
    await this.changeActive(id, 'service', 'remove service from', async (manager) => {
      if (!(await this.resources.clearService(id, manager)))
        throw new NotFoundError('Resource service relationship not found');
    });
    return { message: 'Service removed from resource successfully' };
  }

  /** Validated router settings, written to an active resource. */
  private async updateRouter(id: string, values: Partial<RoutingResource>, change: string): Promise<void> {
    await this.changeActive(id, change, 'update', (manager) => this.resources.update(id, values, manager));
  }

  /** A checked comma list as stored: trimmed entries, or `fallback` when there are none. */
  private static list(value: string | undefined, fallback: string): string {
    return commaList(value).join(',') || fallback;
  }

  async updateHttp(id: string, body: UpdateHttpConfigDto): Promise<HttpConfigDto> {
    const entrypoints = ResourcesService.list(body.entrypoints, 'websecure');
    await this.updateRouter(id, { entrypoints }, 'http');
    return { id, entrypoints };
  }

  async updateTls(id: string, body: UpdateTlsConfigDto): Promise<TlsConfigDto> {
    const tls_domains = ResourcesService.list(body.tls_domains, '');
    await this.updateRouter(id, { tls_domains }, 'tls');
    return { id, tls_domains };
  }

  async updateTcp(id: string, body: UpdateTcpConfigDto): Promise<TcpConfigDto> {
    const enabled = body.tcp_enabled;
    const tcp_entrypoints = ResourcesService.list(body.tcp_entrypoints, 'tcp');
    const tcp_sni_rule = (body.tcp_sni_rule ?? '').trim();
    await this.updateRouter(id, { tcp_enabled: enabled ? 1 : 0, tcp_entrypoints, tcp_sni_rule }, 'tcp');
    return { id, tcp_enabled: enabled, tcp_entrypoints, tcp_sni_rule };
  }

  async updateHeaders(id: string, { custom_headers }: UpdateHeadersConfigDto): Promise<HeadersConfigDto> {
    const text = Object.keys(custom_headers).length ? JSON.stringify(custom_headers) : '';
    await this.updateRouter(id, { custom_headers: text }, 'headers');
    return { id, custom_headers };
  }

  async updatePriority(id: string, { router_priority }: UpdatePriorityConfigDto): Promise<PriorityConfigDto> {
    await this.updateRouter(id, { router_priority }, 'priority');
    return { id, router_priority };
  }
}
