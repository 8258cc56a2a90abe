import { Inject, Injectable } from '@nestjs/common';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSourceConfig } from './data-source.client';
import { ROUTING_SETTINGS } from './middleware-manager.settings';
import type { RoutingSettings } from './middleware-manager.settings';

export interface DataSourceFile {
  active_data_source: string;
  data_sources: Record<string, DataSourceConfig>;
}

/**
 * Data-source settings in `config.json`, as middleware-manager v3 keeps them (so its file can be
 * copied over). Unlike v3, an environment URL only fills a missing entry and never overwrites
 * a URL saved through the API.
 */
@Injectable()
export class DataSourceStore {
  private cached?: DataSourceFile;

  constructor(@Inject(ROUTING_SETTINGS) private readonly settings: RoutingSettings) {}

  private get file(): string {
    return join(this.settings.configDir, 'config.json');
  }

  private defaults(): Record<string, DataSourceConfig> {
    const noAuth = () => ({ username: '', password: '' });
    return {
      pangolin: { type: 'pangolin', url: this.settings.pangolinUrl, basic_auth: noAuth() },
      traefik: { type: 'traefik', url: this.settings.traefikUrl, basic_auth: noAuth() },
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
    this.cached = { active_data_source: active, data_sources: sources };
    return this.cached;
  }

  write(next: DataSourceFile): void {
    mkdirSync(this.settings.configDir, { recursive: true });
    const temp = `${this.file}.tmp-${process.pid}`;
    writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.file);
    this.cached = next;
  }

  active(): { name: string; config: DataSourceConfig } {
    const file = this.read();
    return { name: file.active_data_source, config: file.data_sources[file.active_data_source] };
  }
}
