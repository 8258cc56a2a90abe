import { join } from 'node:path';
import { commaList } from '../common/comma-list';

/** Operator settings of the routing manager, read from the environment (README "Routing manager"). */
export interface RoutingSettings {
  /** Data-source poll period; 0 turns the watcher off. */
  checkIntervalMs: number;
  /** Traefik file rewrite period (besides the prompt rewrite after every change); 0 turns the timer off. */
  generateIntervalMs: number;
  /** Directory of `resource-overrides.yml`; no file is written when unset. */
  traefikConfDir?: string;
  /** Where `config.json` (data-source settings) lives. */
  configDir: string;
  certResolver: string;
  /** Middlewares attached to every new resource (reference issue #56). */
  defaultMiddlewares: { id: string; priority: number }[];
  /** URLs the operator gave; unset means the source keeps its placeholder and is not polled until configured. */
  pangolinUrl?: string;
  traefikUrl?: string;
  fetchTimeoutMs: number;
  /** Plugin Hub catalogue URL (v3's `PLUGINS_JSON_URL`); unset: the catalogue bundled with Keel. */
  pluginCatalogueUrl?: string;
  /** Traefik static configuration file the Plugin Hub edits, until one is set through the API. */
  traefikStaticConfigPath?: string;
  /** Generations of the Traefik configuration kept in its history (the latest always is). */
  historyMax: number;
  /** Days a generation is kept in the history (the latest always is). */
  historyDays: number;
}

export const ROUTING_SETTINGS = Symbol('ROUTING_SETTINGS');

function seconds(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback * 1000;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new Error(`${name} must be a non-negative number of seconds, got "${value}"`);
  return Math.round(n * 1000);
}

function parseDefaultMiddlewares(value: string | undefined): { id: string; priority: number }[] {
  return commaList(value).map((entry) => {
    const [id, priority] = entry.split(':');
    const n = Number(priority);
    return { id: id.trim(), priority: priority !== undefined && Number.isInteger(n) && n > 0 ? n : 200 };
  });
}

function count(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a positive whole number, got "${value}"`);
  return n;
}

/** Keel's own names first, then middleware-manager v3's, so a v3 deployment's environment keeps working. */
export function loadRoutingSettings(env: NodeJS.ProcessEnv, dataDir: string): RoutingSettings {
  const pick = (...names: string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v !== '');
  // Under jest the watcher is off unless a test turns it on: no test may poll the placeholder hosts.
  const checkDefault = env.NODE_ENV === 'test' ? 0 : 30;
  return {
    checkIntervalMs: seconds(
      pick('KEEL_MM_CHECK_INTERVAL_SECONDS', 'CHECK_INTERVAL_SECONDS'),
      checkDefault,
      'KEEL_MM_CHECK_INTERVAL_SECONDS',
    ),
    generateIntervalMs: seconds(
      pick('KEEL_MM_GENERATE_INTERVAL_SECONDS', 'GENERATE_INTERVAL_SECONDS'),
      10,
      'KEEL_MM_GENERATE_INTERVAL_SECONDS',
    ),
    traefikConfDir: pick('KEEL_MM_TRAEFIK_CONF_DIR', 'TRAEFIK_CONF_DIR'),
    configDir: pick('KEEL_MM_CONFIG_DIR') ?? join(dataDir, 'middleware-manager'),
    certResolver: pick('KEEL_MM_CERT_RESOLVER') ?? 'letsencrypt',
    defaultMiddlewares: parseDefaultMiddlewares(pick('KEEL_MM_DEFAULT_MIDDLEWARES')),
    pangolinUrl: pick('KEEL_MM_PANGOLIN_URL', 'PANGOLIN_API_URL'),
    traefikUrl: pick('KEEL_MM_TRAEFIK_URL', 'TRAEFIK_API_URL'),
    fetchTimeoutMs: seconds(pick('KEEL_MM_FETCH_TIMEOUT_SECONDS'), 5, 'KEEL_MM_FETCH_TIMEOUT_SECONDS'),
    pluginCatalogueUrl: pick('KEEL_PLUGIN_CATALOGUE_URL', 'PLUGINS_JSON_URL'),
    traefikStaticConfigPath: pick('KEEL_MM_TRAEFIK_STATIC_CONFIG_PATH', 'TRAEFIK_STATIC_CONFIG_PATH'),
    historyMax: count(pick('KEEL_MM_HISTORY_MAX'), 200, 'KEEL_MM_HISTORY_MAX'),
    historyDays: count(pick('KEEL_MM_HISTORY_DAYS'), 30, 'KEEL_MM_HISTORY_DAYS'),
  };
}
