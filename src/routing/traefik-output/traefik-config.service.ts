import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { join } from 'node:path';
import { Subscription } from 'rxjs';
import { replaceFileSync } from '../../common/paths';
import { DataSourceStore } from '../data-sources/data-source.store';
import { ROUTING_SETTINGS } from '../middleware-manager.settings';
import type { RoutingSettings } from '../middleware-manager.settings';
import { ResourceRepository } from '../resources/resource.repository';
import { RoutingEvents } from '../routing-events';
import { buildTraefikConfig, InvalidRow, TraefikDocument } from './traefik-config.builder';
import { describeEvent, TraefikConfigHistory } from './traefik-config-history.service';
import { toYaml } from './traefik-yaml';

const TRAEFIK_FILE_NAME = 'resource-overrides.yml';
// Changes arrive in bursts (a bulk assignment, a sync): one rewrite after the burst.
const REWRITE_DELAY_MS = 50;
// Traefik's HTTP provider polls every few seconds: serve a cached document, dropped on every
// routing event and never older than this (changes made by another replica have no local event).
const SERVED_MAX_AGE_MS = 2000;

/** The Traefik configuration: served as JSON for the HTTP provider and written as YAML for the file provider. */
@Injectable()
export class TraefikConfigService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('TraefikConfig');
  private timer?: NodeJS.Timeout;
  private pending?: NodeJS.Timeout;
  private subscription?: Subscription;
  private lastWritten?: string;
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Bumped by every routing event, so a build that raced with a change is not cached. */
  private generation = 0;
  private served?: { generation: number; at: number; document: Promise<TraefikDocument> };
  /** Invalid rows already logged (kind/id/reason): the document is rebuilt every few seconds. */
  private readonly reported = new Set<string>();
  /** What happened since the last history recording (see TraefikConfigHistory). */
  private triggers: string[] = [];
  private historyPending?: NodeJS.Timeout;

  constructor(
    private readonly resources: ResourceRepository,
    private readonly store: DataSourceStore,
    private readonly events: RoutingEvents,
    @Inject(ROUTING_SETTINGS) private readonly settings: RoutingSettings,
    private readonly history: TraefikConfigHistory,
  ) {}

  /** The document for one provider: `file` references Keel's objects as `@file`, `http` as `@http`. */
  async build(ownProvider: 'file' | 'http'): Promise<TraefikDocument> {
    const activeSource = this.store.active().config?.type ?? 'pangolin';
    return buildTraefikConfig(await this.resources.snapshot(), {
      activeSource,
      certResolver: this.settings.certResolver,
      ownProvider,
      onInvalidRow: (row) => this.reportInvalid(row),
    });
  }

  private reportInvalid(row: InvalidRow): void {
    const key = `${row.kind}\n${row.id}\n${row.reason}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.logger.warn({ msg: `${row.kind} left out of the Traefik configuration`, ...row });
  }

  /** The HTTP-provider document, cached between changes (see SERVED_MAX_AGE_MS). */
  forHttpProvider(): Promise<TraefikDocument> {
    const now = Date.now();
    const served = this.served;
    if (served?.generation === this.generation && now - served.at < SERVED_MAX_AGE_MS) return served.document;
    const document = this.build('http');
    this.served = { generation: this.generation, at: now, document };
    document.catch(() => (this.served = undefined));
    return document;
  }

  get filePath(): string | undefined {
    return this.settings.traefikConfDir ? join(this.settings.traefikConfDir, TRAEFIK_FILE_NAME) : undefined;
  }

  /** Rewrites the YAML file when its bytes change (atomically: temp file, then rename). Returns whether it wrote. */
  writeFile(): Promise<boolean> {
    const run = this.writing.then(async () => {
      const path = this.filePath;
      if (!path || this.stopped) return false;
      const yaml = toYaml((await this.build('file')) as Record<string, unknown>);
      if (yaml === this.lastWritten) return false;
      replaceFileSync(path, yaml, 0o644);
      this.lastWritten = yaml;
      return true;
    });
    this.writing = run.then(
      () => undefined,
      (error: unknown) => this.logger.warn({ msg: 'writing the Traefik file failed', err: String(error) }),
    );
    return run;
  }

  private scheduleWrite(): void {
    if (this.pending || this.stopped) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.writeFile().catch(() => undefined);
    }, REWRITE_DELAY_MS);
  }

  /** Records the current document in the history (when it changed) after a burst of changes. */
  private scheduleHistory(trigger: string): void {
    this.triggers.push(trigger);
    if (this.historyPending || this.stopped) return;
    this.historyPending = setTimeout(() => {
      this.historyPending = undefined;
      const triggers = this.triggers;
      this.triggers = [];
      this.build('http')
        .then((document) => this.history.record(toYaml(document as Record<string, unknown>), triggers))
        .catch((error: unknown) =>
          this.logger.warn({ msg: 'recording the Traefik configuration failed', err: String(error) }),
        );
    }, REWRITE_DELAY_MS);
  }

  onApplicationBootstrap(): void {
    this.subscription = this.events.changes().subscribe((event) => {
      this.generation++;
      this.scheduleHistory(describeEvent(event));
      if (this.filePath) this.scheduleWrite();
    });
    this.scheduleHistory('start');
    if (!this.filePath) return;
    this.scheduleWrite();
    if (this.settings.generateIntervalMs > 0) {
      this.timer = setInterval(() => this.scheduleWrite(), this.settings.generateIntervalMs);
      this.timer.unref();
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.subscription?.unsubscribe();
    clearInterval(this.timer);
    clearTimeout(this.pending);
    clearTimeout(this.historyPending);
    await this.writing;
    await this.history.settled();
  }
}
