import { Inject, Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFileSync } from '../../common/paths';
import { DataSourceConfig } from './data-source.client';
import { ROUTING_SETTINGS } from '../middleware-manager.settings';
import type { RoutingSettings } from '../middleware-manager.settings';

interface DataSourceFile {
  active_data_source: string;
  data_sources: Record<string, DataSourceConfig>;
}

/** Where the seeded sources point until someone configures them (v3's defaults). */
const PLACEHOLDER_URLS = { pangolin: 'http://pangolin:3001/api/v1', traefik: 'http://traefik:8080' };

/**
 * Data-source settings in `config.json`, as middleware-manager v3 keeps them (so its file can be
 * copied over). Unlike v3, an environment URL only fills a missing entry and never overwrites
 * a URL saved through the API.
 *
 * A source is configured when someone chose it: its URL came from the environment, it is in
 * `config.json` (saved through the API, or a v3 file copied over), or a user activated it. The
 * seeded placeholders are listed but not configured, and only configured sources are written back.
 */
@Injectable()
export class DataSourceStore {
  private cached?: DataSourceFile;
  private configured = new Set<string>();

  constructor(@Inject(ROUTING_SETTINGS) private readonly settings: RoutingSettings) {}

  private get file(): string {
    return join(this.settings.configDir, 'config.json');
  }

  private defaults(): Record<string, DataSourceConfig> {
    const seeded = (type: DataSourceConfig['type'], url = PLACEHOLDER_URLS[type]): DataSourceConfig => ({
      type,
      url,
      basic_auth: { username: '', password: '' },
    });
    return {
      pangolin: seeded('pangolin', this.settings.pangolinUrl),
      traefik: seeded('traefik', this.settings.traefikUrl),
    };
  }

  read(): DataSourceFile {
    if (this.cached) return this.cached;
    let stored: Partial<DataSourceFile> = {};
    try {
      stored = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<DataSourceFile>;
    } catch {
      // absent or unreadable: start from the defaults
    }
    const sources = { ...this.defaults(), ...(stored.data_sources ?? {}) };
    const active =
      stored.active_data_source && sources[stored.active_data_source]
        ? stored.active_data_source
        : 'pangolin';
    this.configured = new Set(Object.keys(stored.data_sources ?? {}));
    if (this.settings.pangolinUrl) this.configured.add('pangolin');
    if (this.settings.traefikUrl) this.configured.add('traefik');
    this.cached = { active_data_source: active, data_sources: sources };
    return this.cached;
  }

  /** Whether `name` was ever configured (see the class comment); placeholders are not polled. */
  isConfigured(name: string): boolean {
    this.read();
    return this.configured.has(name);
  }

  /** Saves one source's settings (creating it when new); it counts as configured from now on. */
  saveSource(name: string, config: DataSourceConfig): void {
    const file = this.read();
    this.configured.add(name);
    this.write({ ...file, data_sources: { ...file.data_sources, [name]: config } });
  }

  /** Makes an existing source the active one; a user's choice configures it. */
  activate(name: string): void {
    const file = this.read();
    this.configured.add(name);
    this.write({ ...file, active_data_source: name });
  }

  private write(next: DataSourceFile): void {
    const saved: DataSourceFile = { active_data_source: next.active_data_source, data_sources: {} };
    for (const name of Object.keys(next.data_sources).sort())
      if (this.configured.has(name)) saved.data_sources[name] = next.data_sources[name];
    replaceFileSync(this.file, `${JSON.stringify(saved, null, 2)}\n`, 0o600);
    this.cached = next;
  }

  active(): { name: string; config: DataSourceConfig } {
    const file = this.read();
    return { name: file.active_data_source, config: file.data_sources[file.active_data_source] };
  }
}
