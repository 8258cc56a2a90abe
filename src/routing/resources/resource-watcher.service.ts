import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { describeFetchError, DiscoveredRouter, fetchRouters } from '../data-sources/data-source.client';
import { DataSourceStore } from '../data-sources/data-source.store';
import { DefinitionRepository, MIDDLEWARE_KIND } from '../definitions/definition.repository';
import { ROUTING_SETTINGS } from '../middleware-manager.settings';
import type { RoutingSettings } from '../middleware-manager.settings';
import { RoutingResource } from './resource.entity';
import { ResourceRepository } from './resource.repository';
import { DEFAULT_ROUTER_PRIORITY } from './resources.service';
import { RoutingEvents } from '../routing-events';
import { LastSyncDto } from '../dto/routing-responses.dto';

interface SyncResult {
  source: string;
  added: string[];
  updated: string[];
  reactivated: string[];
  disabled: string[];
}

/** The lists of a SyncResult: what a sync did, and to which resources. */
const CHANGES = ['added', 'updated', 'reactivated', 'disabled'] as const;

/**
 * Polls the active data source and mirrors its routers into `resources`: new → active, vanished →
 * disabled (assignments kept), returning → active again. Matching is by exact id only.
 */
@Injectable()
export class ResourceWatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ResourceWatcher');
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** The unconfigured source last reported, so the notice is logged once, not every tick. */
  private reportedUnconfigured?: string;
  /** Per process: each replica polls on its own. */
  lastSync: LastSyncDto | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly resources: ResourceRepository,
    private readonly definitions: DefinitionRepository,
    private readonly store: DataSourceStore,
    private readonly events: RoutingEvents,
    @Inject(ROUTING_SETTINGS) private readonly settings: RoutingSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (this.settings.checkIntervalMs <= 0) return;
    const tick = () => void this.syncOnce().catch(() => undefined);
    tick();
    this.timer = setInterval(tick, this.settings.checkIntervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running.catch(() => undefined);
  }

  /** After a data-source change: sync now instead of at the next tick (when the watcher runs). */
  syncSoon(): void {
    if (this.settings.checkIntervalMs > 0 && !this.stopped) void this.syncOnce().catch(() => undefined);
  }

  /**
   * One sync; runs never overlap. Resolves null when nothing was fetched (nothing changed then):
   * the fetch failed, or the active source is a seeded placeholder nobody configured.
   */
  syncOnce(): Promise<SyncResult | null> {
    const run = this.running.catch(() => undefined).then(() => this.sync());
    this.running = run;
    return run;
  }

  private async sync(): Promise<SyncResult | null> {
    if (this.stopped) return null;
    const { name, config } = this.store.active();
    if (!this.store.isConfigured(name)) {
      // A fresh install has no Pangolin at the placeholder URL: polling it would only warn every tick.
      if (this.reportedUnconfigured !== name) {
        this.reportedUnconfigured = name;
        this.logger.log({
          msg: 'active data source not configured; not polled until its settings are saved or it is activated',
          source: name,
          url: config.url,
        });
      }
      return null;
    }
    this.reportedUnconfigured = undefined;
    let routers: DiscoveredRouter[];
    try {
      routers = await fetchRouters(config, this.settings.fetchTimeoutMs);
    } catch (fetchError) {
      const error = describeFetchError(fetchError);
      this.logger.warn({ msg: 'data source fetch failed; resources unchanged', source: name, err: error });
      this.lastSync = { source: name, at: new Date().toISOString(), ok: false, error };
      return null;
    }
    if (this.stopped) return null;
    const result = await this.db.transaction(async (manager) => {
      const existing = new Map((await this.resources.all(manager)).map((r) => [r.id, r]));
      const listed = new Set(routers.map((r) => r.id));
      const discovered = new Map<string, DiscoveredRouter>();
      for (const router of routers) {
        if (!discovered.has(router.id) && !this.isKeelRouter(router, existing, listed))
          discovered.set(router.id, router);
      }
      const outcome: SyncResult = { source: name, added: [], updated: [], reactivated: [], disabled: [] };
      const added: Partial<RoutingResource>[] = [];
      for (const router of discovered.values()) {
        const row = existing.get(router.id);
        if (!row) {
          added.push({
            id: router.id,
            host: router.host,
            service_id: router.serviceId,
            org_id: 'unknown',
            site_id: 'unknown',
            status: 'active',
            entrypoints: router.entrypoints || 'websecure',
            tls_domains: router.tlsDomains,
            router_priority: this.initialPriority(router),
            source_type: router.sourceType,
          });
          outcome.added.push(router.id);
          continue;
        }
        const reactivated = row.status !== 'active';
        if (
          reactivated ||
          row.host !== router.host ||
          row.service_id !== router.serviceId ||
          row.source_type !== router.sourceType
        ) {
          // Only what the source owns; the user's router settings stay.
          const { host, serviceId: service_id, sourceType: source_type } = router;
          await this.resources.update(
            router.id,
            { host, service_id, status: 'active', source_type },
            manager,
          );
          (reactivated ? outcome.reactivated : outcome.updated).push(router.id);
        }
      }
      await this.resources.insertIgnoring(added, manager);
      await this.resources.linkMiddlewaresIgnoring(await this.defaultLinks(manager, outcome.added), manager);
      const vanished = [...existing.values()]
        .filter((r) => r.status === 'active' && !discovered.has(r.id))
        .map((r) => r.id);
      if (vanished.length) await this.resources.update(vanished, { status: 'disabled' }, manager);
      outcome.disabled = vanished.sort();
      return outcome;
    });
    const counts = Object.fromEntries(CHANGES.map((change) => [change, result[change].length]));
    this.lastSync = {
      source: name,
      at: new Date().toISOString(),
      ok: true,
      routers: routers.length,
      ...counts,
    };
    if (CHANGES.some((change) => counts[change] > 0)) this.events.publish('resources.synced', { ...result });
    return result;
  }

  /**
   * Routers Keel generated itself, read back through the Traefik API: `<id>-auth` from the file
   * (or HTTP) provider whose `<id>` is a known resource or a router of the same listing.
   */
  private isKeelRouter(
    router: DiscoveredRouter,
    existing: Map<string, RoutingResource>,
    listed: Set<string>,
  ): boolean {
    if (router.sourceType !== 'traefik' || !router.id.endsWith('-auth')) return false;
    if (router.provider !== 'file' && router.provider !== 'http') return false;
    const base = router.id.slice(0, -'-auth'.length);
    return existing.has(base) || listed.has(base);
  }

  /** The Traefik API reports the source router's own priority: Keel's router must out-rank it. */
  private initialPriority(router: DiscoveredRouter): number {
    return router.priority !== undefined && router.priority >= DEFAULT_ROUTER_PRIORITY
      ? router.priority + 1
      : DEFAULT_ROUTER_PRIORITY;
  }

  /** Links of the default middlewares (issue #56) for new resources; unknown ids are skipped with a warning. */
  private async defaultLinks(manager: EntityManager, resourceIds: string[]) {
    const wanted = this.settings.defaultMiddlewares;
    if (!wanted.length || !resourceIds.length) return [];
    const known = await this.definitions.existing(
      MIDDLEWARE_KIND,
      wanted.map((m) => m.id),
      manager,
    );
    for (const { id } of wanted.filter((m) => !known.has(m.id)))
      this.logger.warn({ msg: 'default middleware not found; not attached', middleware: id });
    return resourceIds.flatMap((resource_id) =>
      wanted
        .filter((m) => known.has(m.id))
        .map(({ id, priority }) => ({ resource_id, middleware_id: id, priority })),
    );
  }
}
