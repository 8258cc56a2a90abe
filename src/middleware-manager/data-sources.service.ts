import { Inject, Injectable } from '@nestjs/common';
import { BadRequestError, NotFoundError } from '../common/errors';
import { DataSourceConfig, describeFetchError, fetchJson } from './data-source.client';
import { DataSourceStore } from './data-source.store';
import { ROUTING_SETTINGS } from './middleware-manager.settings';
import type { RoutingSettings } from './middleware-manager.settings';
import { RequestBody } from './request-body';
import { LastSync, ResourceWatcher } from './resource-watcher.service';
import { RoutingEvents } from './routing-events';

export const PASSWORD_MASK = '••••••••';
const SOURCE_TYPES = ['pangolin', 'traefik'];
const AUTH_FIELDS = ['basic_auth', 'basicAuth'];

function masked(config: DataSourceConfig): DataSourceConfig {
  const auth = config.basic_auth ?? { username: '', password: '' };
  return {
    ...config,
    basic_auth: { username: auth.username ?? '', password: auth.password ? PASSWORD_MASK : '' },
  };
}

/** `/api/datasource`: data-source settings with passwords masked in every answer. */
@Injectable()
export class DataSourcesService {
  constructor(
    private readonly store: DataSourceStore,
    private readonly events: RoutingEvents,
    private readonly watcher: ResourceWatcher,
    @Inject(ROUTING_SETTINGS) private readonly settings: RoutingSettings,
  ) {}

  list(): { active_source: string; sources: Record<string, DataSourceConfig> } {
    const file = this.store.read();
    const sources: Record<string, DataSourceConfig> = {};
    for (const name of Object.keys(file.data_sources).sort()) sources[name] = masked(file.data_sources[name]);
    return { active_source: file.active_data_source, sources };
  }

  active(): { name: string; config: DataSourceConfig; last_sync: LastSync | null } {
    const { name, config } = this.store.active();
    const last = this.watcher.lastSync;
    return { name, config: masked(config), last_sync: last?.source === name ? last : null };
  }

  setActive(body: unknown): { message: string; name: string } {
    const request = new RequestBody(body);
    const name = request.requiredString('name');
    request.done();
    if (!this.store.read().data_sources[name]) throw new BadRequestError(`data source not found: ${name}`);
    this.store.activate(name);
    this.events.publish('datasource.activated', { name });
    this.watcher.syncSoon();
    return { message: 'Data source updated successfully', name };
  }

  /** Parses a source body; the mask string (echoed back by a UI) keeps the stored password. */
  private parseSource(body: unknown, stored?: DataSourceConfig): DataSourceConfig {
    const request = new RequestBody(body);
    const type = request.requiredString('type');
    if (type && !SOURCE_TYPES.includes(type))
      request.reject(['type'], `unsupported data source type: ${type} (pangolin or traefik)`);
    const url = request.requiredString('url').trim().replace(/\/+$/, '');
    const urlProblem = url ? baseUrlProblem(url) : undefined;
    if (urlProblem) request.reject(['url'], urlProblem);
    let username = '';
    let password = '';
    // v3's config.json and API say `basic_auth`; the UI sends `basicAuth`. Stored as `basic_auth`.
    const spellings = AUTH_FIELDS.filter((field) => request.has(field));
    if (spellings.length > 1)
      request.reject(['basicAuth'], 'send the credentials once, as basic_auth or basicAuth', 'invalid_value');
    else if (spellings.length === 1) {
      const auth = new RequestBody(request.requiredObject(spellings[0]), [spellings[0]]);
      username = auth.optionalString('username') ?? '';
      password = auth.optionalString('password') ?? '';
      request.issues.push(...auth.issues);
    }
    request.done();
    if (password === PASSWORD_MASK) password = stored?.basic_auth?.password ?? '';
    return { type: type as DataSourceConfig['type'], url, basic_auth: { username, password } };
  }

  update(name: string, body: unknown): { message: string; name: string; config: DataSourceConfig } {
    const file = this.store.read();
    const config = this.parseSource(body, file.data_sources[name]);
    this.store.saveSource(name, config);
    this.events.publish('datasource.updated', { name, config: masked(config) });
    if (name === file.active_data_source) this.watcher.syncSoon();
    return { message: 'Data source updated successfully', name, config: masked(config) };
  }

  /** Probes the source's router endpoint; an empty body tests the stored settings of `name`. */
  async test(name: string, body: unknown): Promise<{ message: string; name: string }> {
    const stored = this.store.read().data_sources[name];
    const empty =
      body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0);
    let config: DataSourceConfig;
    if (empty) {
      if (!stored) throw new NotFoundError(`data source not found: ${name}`);
      config = stored;
    } else config = this.parseSource(body, stored);
    try {
      await fetchJson(config, this.settings.fetchTimeoutMs);
    } catch (error) {
      throw new BadRequestError(`Connection test failed: ${describeFetchError(error)}`);
    }
    return { message: 'Connection test successful', name };
  }
}

/** Why `url` cannot be a data source's base URL: paths are appended to it, so it is scheme, host, port and path only. */
function baseUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an http(s) URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http(s) URL';
  if (url.includes('?') || url.includes('#')) return 'must be a base URL without a query or fragment (paths such as /traefik-config are appended to it)';
  if (parsed.username || parsed.password) return 'must not hold credentials: send them as basic_auth';
  return undefined;
}
