import { Inject, Injectable } from '@nestjs/common';
import { BadRequestError, NotFoundError } from '../../common/errors';
import { DataSourceConfig, describeFetchError, fetchJson } from './data-source.client';
import { DataSourceStore } from './data-source.store';
import { ROUTING_SETTINGS } from '../middleware-manager.settings';
import type { RoutingSettings } from '../middleware-manager.settings';
import { baseUrl, DataSourceDto, SetActiveDataSourceDto } from './dto/data-source.dto';
import { ResourceWatcher } from '../resources/resource-watcher.service';
import { RoutingEvents } from '../routing-events';
import { ActiveDataSourceDto, DataSourceChangedDto, DataSourceListDto } from '../dto/routing-responses.dto';

const PASSWORD_MASK = '••••••••';

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

  list(): DataSourceListDto {
    const file = this.store.read();
    const sources: Record<string, DataSourceConfig> = {};
    for (const name of Object.keys(file.data_sources).sort()) sources[name] = masked(file.data_sources[name]);
    return { active_source: file.active_data_source, sources };
  }

  active(): ActiveDataSourceDto {
    const { name, config } = this.store.active();
    const last = this.watcher.lastSync;
    return { name, config: masked(config), last_sync: last?.source === name ? last : null };
  }

  setActive({ name }: SetActiveDataSourceDto): DataSourceChangedDto {
    if (!this.store.read().data_sources[name]) throw new BadRequestError(`data source not found: ${name}`);
    this.store.activate(name);
    this.events.publish('datasource.activated', { name });
    this.watcher.syncSoon();
    return { message: 'Data source updated successfully', name };
  }

  /** A checked source body as stored; the mask string (echoed back by a UI) keeps the stored password. */
  private static source(body: DataSourceDto, stored?: DataSourceConfig): DataSourceConfig {
    // v3's config.json and API say `basic_auth`; the UI sends `basicAuth` (the DTO allows one). Stored as `basic_auth`.
    const auth = body.basic_auth ?? body.basicAuth;
    let password = auth?.password ?? '';
    if (password === PASSWORD_MASK) password = stored?.basic_auth?.password ?? '';
    return {
      type: body.type,
      url: baseUrl(body.url),
      basic_auth: { username: auth?.username ?? '', password },
    };
  }

  update(name: string, body: DataSourceDto): DataSourceChangedDto {
    const file = this.store.read();
    const config = DataSourcesService.source(body, file.data_sources[name]);
    this.store.saveSource(name, config);
    this.events.publish('datasource.updated', { name, config: masked(config) });
    if (name === file.active_data_source) this.watcher.syncSoon();
    return { message: 'Data source updated successfully', name, config: masked(config) };
  }

  /** Probes the source's router endpoint; an empty body tests the stored settings of `name`. */
  async test(name: string, body: DataSourceDto | undefined): Promise<DataSourceChangedDto> {
    const stored = this.store.read().data_sources[name];
    if (!body && !stored) throw new NotFoundError(`data source not found: ${name}`);
    const config = body ? DataSourcesService.source(body, stored) : stored;
    try {
      await fetchJson(config, this.settings.fetchTimeoutMs);
    } catch (error) {
      throw new BadRequestError(`Connection test failed: ${describeFetchError(error)}`);
    }
    return { message: 'Connection test successful', name };
  }
}
