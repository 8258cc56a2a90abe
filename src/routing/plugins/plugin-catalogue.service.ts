import { Inject, Injectable, Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { assetPath } from '../../common/assets';
import { guardedGet } from '../../common/guarded-fetch';
import { KEEL_SETTINGS } from '../../common/settings';
import { isJsonObject } from '../../common/validation/request-fields';
import type { KeelSettings } from '../../common/settings';
import { ROUTING_SETTINGS } from '../middleware-manager.settings';
import type { PluginDto } from './dto/plugin.dto';
import type { RoutingSettings } from '../middleware-manager.settings';

/** One catalogue entry, with middleware-manager v3's field names (`plugin/plugins.json`). */
export type CataloguePlugin = Omit<PluginDto, 'isInstalled' | 'installedVersion' | 'key' | 'inCatalogue'>;

export interface Catalogue {
  plugins: CataloguePlugin[];
  /** `remote` when it came from the configured URL, `bundled` for the copy shipped with Keel. */
  source: 'remote' | 'bundled';
  /** Why the remote catalogue was not used, when one is configured and failed. */
  problem?: string;
}

/** A Go module path as Traefik takes it: host and path segments, no scheme, no version suffix. */
export const MODULE_NAME = /^[A-Za-z0-9][A-Za-z0-9.-]*(\/[A-Za-z0-9._~-]+)+$/;

const MAX_BYTES = 2 * 1024 * 1024;
const MAX_ENTRIES = 5_000;
const FRESH_MS = 5 * 60_000;
/** A failed fetch is not retried for this long, so an offline server does not wait out the timeout on every page load. */
const RETRY_AFTER_FAILURE_MS = 30_000;
const TEXT_FIELDS = [
  'displayName',
  'type',
  'iconPath',
  'summary',
  'author',
  'version',
  'tested_with',
  'homepage',
  'docs',
] as const;

/** The entries of a catalogue document that have a usable module name; anything else is dropped. */
function parseCatalogue(document: unknown): CataloguePlugin[] {
  if (!Array.isArray(document)) throw new Error('the catalogue is not a JSON array');
  const plugins: CataloguePlugin[] = [];
  for (const raw of document.slice(0, MAX_ENTRIES)) {
    if (!isJsonObject(raw)) continue;
    if (typeof raw.import !== 'string' || raw.import.length > 300 || !MODULE_NAME.test(raw.import)) continue;
    const plugin: CataloguePlugin = {
      displayName: '',
      type: 'middleware',
      iconPath: '',
      import: raw.import,
      summary: '',
    };
    for (const field of TEXT_FIELDS) {
      const value = raw[field];
      if (typeof value === 'string') plugin[field] = value.slice(0, 2_000);
    }
    if (typeof raw.stars === 'number' && Number.isFinite(raw.stars)) plugin.stars = raw.stars;
    plugin.displayName ||= raw.import.split('/').pop()!;
    plugins.push(plugin);
  }
  if (document.length > 0 && plugins.length === 0)
    throw new Error('no entry of the catalogue has a module name in "import"');
  return plugins;
}

/**
 * The Plugin Hub's catalogue: the configured URL (v3's `PLUGINS_JSON_URL`) fetched with the guards of
 * every operator-named URL (timeout, size cap, no private address unless KEEL_ALLOW_PRIVATE_FETCH),
 * else the copy kept in the repository, so the hub works offline.
 */
@Injectable()
export class PluginCatalogue {
  private readonly logger = new Logger('PluginCatalogue');
  private cached?: { catalogue: Catalogue; until: number };
  private bundled?: CataloguePlugin[];

  constructor(
    @Inject(ROUTING_SETTINGS) private readonly settings: RoutingSettings,
    @Inject(KEEL_SETTINGS) private readonly keel: KeelSettings,
  ) {}

  private bundledPlugins(): CataloguePlugin[] {
    this.bundled ??= parseCatalogue(
      JSON.parse(readFileSync(assetPath('routing', 'plugin-catalogue.json'), 'utf8')),
    );
    return this.bundled;
  }

  async load(): Promise<Catalogue> {
    if (this.cached && this.cached.until > Date.now()) return this.cached.catalogue;
    const url = this.settings.pluginCatalogueUrl;
    let catalogue: Catalogue;
    if (!url) catalogue = { plugins: this.bundledPlugins(), source: 'bundled' };
    else {
      try {
        catalogue = { plugins: await this.fetch(url), source: 'remote' };
      } catch (error) {
        const problem = `The plugin catalogue at ${url} could not be used (${(error as Error).message}); showing the catalogue bundled with Keel`;
        this.logger.warn(problem);
        catalogue = { plugins: this.bundledPlugins(), source: 'bundled', problem };
      }
    }
    const ttl = catalogue.problem ? RETRY_AFTER_FAILURE_MS : FRESH_MS;
    this.cached = { catalogue, until: Date.now() + ttl };
    return catalogue;
  }

  private async fetch(url: string): Promise<CataloguePlugin[]> {
    const { response, body } = await guardedGet(
      url,
      {
        maxBytes: MAX_BYTES,
        timeoutMs: this.settings.fetchTimeoutMs || 5_000,
        maxRedirects: 3,
        allowPrivate: this.keel.allowPrivateFetch,
      },
      'application/json',
    );
    const status = response.statusCode ?? 0;
    if (status !== 200) throw new Error(`it answered HTTP ${status}`);
    let document: unknown;
    try {
      document = JSON.parse(body.toString('utf8'));
    } catch {
      throw new Error('it is not JSON');
    }
    return parseCatalogue(document);
  }
}
