import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isIP } from 'node:net';
import { allowedRoots } from './allowed-directories';
import { commaList } from './comma-list';
import { AssistantSettings, loadAssistantSettings } from '../assistant/assistant-settings';
import { IngestionSettings, loadIngestionSettings } from '../memory/ingestion-settings';
import { loadRoutingSettings, RoutingSettings } from '../routing/middleware-manager.settings';
import { loadPermissionSettings, PermissionSettings } from '../permissions/permission-settings';
import { loadPtySettings, PtySettings } from '../pty/pty-settings';
import { loadSessionSettings, SessionSettings } from '../sessions/session-settings';

/**
 * Every operator setting, read once at start from the environment and the command line (and validated:
 * a bad value stops the start with a message naming it), then injected (KEEL_SETTINGS): no service
 * reads the environment itself, so a test's `env` reaches every one. `SETTINGS` in setting-catalog.ts
 * lists them for `keel --help` and the documentation.
 */
export interface KeelSettings {
  host: string;
  port: number;
  dataDir: string;
  /** PostgreSQL URL; SQLite under `dataDir` when absent. */
  databaseUrl?: string;
  /** Schema used on PostgreSQL (tests isolate themselves with one schema each). */
  databaseSchema?: string;
  serverUsername: string;
  serverPassword?: string;
  /** Lifetime of a console sign-in (the session cookie of `POST /keel/login`), in hours. */
  consoleSessionHours: number;
  /** API keys of the memory surface (plain text here; only hashes are kept in memory). */
  apiKeys: string[];
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  corsOrigins: string[];
  /**
   * Host names served besides loopback ones (`KEEL_ALLOWED_HOSTS`): on a loopback bind every other
   * `Host` is refused (DNS rebinding); on other binds the list, when given, is enforced too.
   */
  allowedHosts: string[];
  /** Trusted reverse proxies (Express `trust proxy` value); none by default. */
  trustProxy?: string;
  /**
   * Public address of this server (`KEEL_PUBLIC_URL`, no trailing slash), used in links it hands out
   * (share urls). Derived from each request when unset.
   */
  publicUrl?: string;
  /**
   * Directories a request may name; the user's home (and the working directory) by default. Each
   * root as given and as its real path (see allowedRoots).
   */
  allowedDirectories: string[];
  /** Allow outbound fetches (webfetch, URL ingestion) to loopback and private addresses. */
  allowPrivateFetch: boolean;
  /** Period of `server.heartbeat` frames on the event streams. */
  heartbeatMs: number;
  /** Bytes an SSE client may lag behind before it is disconnected. */
  sseMaxBufferedBytes: number;
  /** How long in-flight requests may run on at shutdown before their connections are closed. */
  shutdownGraceMs: number;
  /** Time a client has to send a request's headers, and the whole request (body included). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** With PostgreSQL, relay events between replicas (`KEEL_EVENT_RELAY`). */
  eventRelay: boolean;
  /** Each feature's own group. */
  sessions: SessionSettings;
  assistant: AssistantSettings;
  permissions: PermissionSettings;
  pty: PtySettings;
  memory: IngestionSettings;
  routing: RoutingSettings;
}

export const KEEL_SETTINGS = Symbol('KEEL_SETTINGS');

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

function flag(argv: string[], name: string): string | undefined {
  const index = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (index < 0) return undefined;
  const arg = argv[index];
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[index + 1];
}

function milliseconds(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} must be a positive integer (milliseconds), got "${value}"`);
  return parsed;
}

function hours(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || parsed > 24 * 366) throw new Error(`${name} must be a number of hours above 0 (at most a year), got "${value}"`);
  return parsed;
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '[::1]';
}

function publicUrl(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (!URL.canParse(text)) throw new Error(`KEEL_PUBLIC_URL must be an absolute http(s) URL, got "${text}"`);
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:' || url.search || url.hash)
    throw new Error(`KEEL_PUBLIC_URL must be an http(s) URL without query or fragment, got "${text}"`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** Read settings; throws with a clear message on an unusable combination. */
export function loadSettings(
  env: NodeJS.ProcessEnv = process.env,
  argv: string[] = process.argv.slice(2),
): KeelSettings {
  const host = flag(argv, 'hostname') ?? env.KEEL_HOST ?? '127.0.0.1';
  const portText = flag(argv, 'port') ?? env.KEEL_PORT ?? env.PORT ?? '4096';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`KEEL_PORT must be an integer between 0 and 65535, got "${portText}"`);
  }
  const logLevel = (env.KEEL_LOG_LEVEL ?? 'info') as KeelSettings['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new Error(`KEEL_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const serverPassword = env.KEEL_SERVER_PASSWORD ?? env.OPENCODE_SERVER_PASSWORD ?? undefined;
  const apiKeys = commaList(env.KEEL_API_KEYS);
  if (!isLoopback(host) && (!serverPassword || apiKeys.length === 0)) {
    throw new Error(
      `Refusing to listen on ${host}: set KEEL_SERVER_PASSWORD and KEEL_API_KEYS to bind outside loopback`,
    );
  }
  const dataDir = resolve(env.KEEL_DATA_DIR ?? join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'keel'));
  const allowed = commaList(env.KEEL_ALLOWED_DIRECTORIES).map((d) => resolve(d));
  return {
    host,
    port,
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.KEEL_DATABASE_SCHEMA || undefined,
    serverUsername: env.KEEL_SERVER_USERNAME ?? env.OPENCODE_SERVER_USERNAME ?? 'opencode',
    serverPassword: serverPassword || undefined,
    consoleSessionHours: hours(env.KEEL_CONSOLE_SESSION_HOURS, 12, 'KEEL_CONSOLE_SESSION_HOURS'),
    apiKeys,
    logLevel,
    corsOrigins: [...commaList(env.KEEL_CORS), ...commaList(flag(argv, 'cors'))],
    allowedHosts: commaList(env.KEEL_ALLOWED_HOSTS),
    trustProxy: env.KEEL_TRUST_PROXY || undefined,
    publicUrl: publicUrl(env.KEEL_PUBLIC_URL),
    allowedDirectories: allowedRoots(allowed.length > 0 ? allowed : [homedir(), process.cwd()]),
    allowPrivateFetch: env.KEEL_ALLOW_PRIVATE_FETCH === 'true',
    heartbeatMs: Number(env.KEEL_HEARTBEAT_MS ?? 10_000),
    sseMaxBufferedBytes: Number(env.KEEL_SSE_MAX_BUFFER ?? 8 * 1024 * 1024),
    shutdownGraceMs: Number(env.KEEL_SHUTDOWN_GRACE_MS ?? 10_000),
    headersTimeoutMs: milliseconds(env.KEEL_HEADERS_TIMEOUT_MS, 30_000, 'KEEL_HEADERS_TIMEOUT_MS'),
    requestTimeoutMs: milliseconds(env.KEEL_REQUEST_TIMEOUT_MS, 120_000, 'KEEL_REQUEST_TIMEOUT_MS'),
    eventRelay: env.KEEL_EVENT_RELAY !== 'false',
    sessions: loadSessionSettings(env),
    assistant: loadAssistantSettings(env),
    permissions: loadPermissionSettings(env),
    pty: loadPtySettings(env),
    memory: loadIngestionSettings(env),
    routing: loadRoutingSettings(env, dataDir),
  };
}
