/** Operator settings of the memory surface, read from the environment once at start. */
export interface IngestionSettings {
  /** Documents processed at the same time by this process. */
  concurrency: number;
  /** How long a claimed document stays reserved without progress before another worker may resume it. */
  leaseMs: number;
  /** `dreaming: dynamic` waits this long after the last update of a customId/conversation before dreaming. */
  dynamicDreamDelayMs: number;
  /** Fetched URL limits. */
  fetchMaxBytes: number;
  fetchTimeoutMs: number;
  fetchMaxRedirects: number;
  /** Webhook URLs that receive every status transition (POST JSON). */
  webhooks: string[];
  /** Shared secret that signs webhook bodies (HMAC-SHA256, `x-keel-signature`). */
  webhookSecret?: string;
  /** OpenAI-compatible embeddings endpoint base URL (`<url>/embeddings`); full-text only when unset. */
  embeddingUrl?: string;
  embeddingModel: string;
  embeddingApiKey?: string;
}

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return parsed;
}

export function loadIngestionSettings(env: NodeJS.ProcessEnv = process.env): IngestionSettings {
  return {
    concurrency: Math.max(1, int(env.KEEL_INGEST_CONCURRENCY, 4, 'KEEL_INGEST_CONCURRENCY')),
    leaseMs: Math.max(1000, int(env.KEEL_INGEST_LEASE_MS, 60_000, 'KEEL_INGEST_LEASE_MS')),
    dynamicDreamDelayMs: int(env.KEEL_DREAM_DELAY_MS, 2_000, 'KEEL_DREAM_DELAY_MS'),
    fetchMaxBytes: int(env.KEEL_FETCH_MAX_BYTES, 10 * 1024 * 1024, 'KEEL_FETCH_MAX_BYTES'),
    fetchTimeoutMs: int(env.KEEL_FETCH_TIMEOUT_MS, 15_000, 'KEEL_FETCH_TIMEOUT_MS'),
    fetchMaxRedirects: int(env.KEEL_FETCH_MAX_REDIRECTS, 5, 'KEEL_FETCH_MAX_REDIRECTS'),
    webhooks: (env.KEEL_INGEST_WEBHOOKS ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean),
    webhookSecret: env.KEEL_INGEST_WEBHOOK_SECRET || undefined,
    embeddingUrl: env.KEEL_EMBEDDING_URL?.replace(/\/+$/, '') || undefined,
    embeddingModel: env.KEEL_EMBEDDING_MODEL || 'text-embedding-3-small',
    embeddingApiKey: env.KEEL_EMBEDDING_API_KEY || undefined,
  };
}

export const INGESTION_SETTINGS = Symbol('INGESTION_SETTINGS');
