import type { ExtractionLimits } from './pipeline/extraction';

/** Bounds of the process that reads untrusted content (uploaded files, fetched pages, text bodies). */
export interface ExtractionSettings extends ExtractionLimits {
  /** Resident memory of one extraction process (heap, buffers and code), in MB. */
  maxMemoryMb: number;
  /** Time one document may take to read. */
  timeoutMs: number;
  /** Extractions a document may start (each counted before it starts) before it fails for good. */
  maxAttempts: number;
}

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
  extraction: ExtractionSettings;
  /** Webhook URLs that receive every status transition (POST JSON). */
  webhooks: string[];
  /** Shared secret that signs webhook bodies (HMAC-SHA256, `x-keel-signature`). */
  webhookSecret?: string;
  /** Attempts per delivery (first try included) before it is dropped and logged. */
  webhookAttempts: number;
  /** First retry delay; each further retry doubles it (capped at a minute, with jitter). */
  webhookBackoffMs: number;
  /** Time a receiver has to answer one attempt. */
  webhookTimeoutMs: number;
  /** Deliveries kept in the outbox per receiver; beyond it the oldest are dropped and logged. */
  webhookQueueLimit: number;
  /** Attempts in flight per receiver. */
  webhookConcurrency: number;
  /** OpenAI-compatible embeddings endpoint base URL (`<url>/embeddings`); full-text only when unset. */
  embeddingUrl?: string;
  embeddingModel: string;
  embeddingApiKey?: string;
  /** How often a changed vector index is saved beside the data (also at shutdown); 0: never saved. */
  vectorSaveIntervalMs: number;
  /** SQLite: up to this many vectors an exact sqlite-vec scan answers; beyond, the usearch HNSW index. */
  vectorExactLimit: number;
  /** OpenAI-compatible chat endpoint base URL (`<url>/chat/completions`) of the memory model; deterministic extraction when unset. */
  memoryModelUrl?: string;
  memoryModel: string;
  memoryModelApiKey?: string;
  /** One extraction call, retries included; kept under the lease so no other worker resumes the document meanwhile. */
  memoryModelTimeoutMs: number;
  /** Retries of a retryable failure (429, 5xx, connection), with exponential backoff. */
  memoryModelRetries: number;
  /** Latest memories of the container shown to the model for relation decisions. */
  memoryModelContext: number;
  /** Characters of document text per model call; longer documents are sent in several windows. */
  memoryModelWindowChars: number;
  /** Ask for `json_schema` structured output (else `json_object`, for servers without schema support). */
  memoryModelJsonSchema: boolean;
}

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return parsed;
}

function bool(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new Error(`${name} must be true or false, got "${value}"`);
}

export function loadIngestionSettings(env: NodeJS.ProcessEnv): IngestionSettings {
  return {
    concurrency: Math.max(1, int(env.KEEL_INGEST_CONCURRENCY, 4, 'KEEL_INGEST_CONCURRENCY')),
    leaseMs: Math.max(1000, int(env.KEEL_INGEST_LEASE_MS, 60_000, 'KEEL_INGEST_LEASE_MS')),
    dynamicDreamDelayMs: int(env.KEEL_DREAM_DELAY_MS, 2_000, 'KEEL_DREAM_DELAY_MS'),
    fetchMaxBytes: int(env.KEEL_FETCH_MAX_BYTES, 10 * 1024 * 1024, 'KEEL_FETCH_MAX_BYTES'),
    fetchTimeoutMs: int(env.KEEL_FETCH_TIMEOUT_MS, 15_000, 'KEEL_FETCH_TIMEOUT_MS'),
    fetchMaxRedirects: int(env.KEEL_FETCH_MAX_REDIRECTS, 5, 'KEEL_FETCH_MAX_REDIRECTS'),
    extraction: {
      maxMemoryMb: Math.max(64, int(env.KEEL_EXTRACT_MAX_MEMORY_MB, 256, 'KEEL_EXTRACT_MAX_MEMORY_MB')),
      timeoutMs: Math.max(1000, int(env.KEEL_EXTRACT_TIMEOUT_MS, 60_000, 'KEEL_EXTRACT_TIMEOUT_MS')),
      maxUncompressedBytes: Math.max(1, int(env.KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES, 200 * 1024 * 1024, 'KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES')),
      maxRatio: Math.max(1, int(env.KEEL_EXTRACT_MAX_RATIO, 100, 'KEEL_EXTRACT_MAX_RATIO')),
      maxZipEntries: Math.max(1, int(env.KEEL_EXTRACT_MAX_ZIP_ENTRIES, 10_000, 'KEEL_EXTRACT_MAX_ZIP_ENTRIES')),
      maxTextChars: Math.max(1, int(env.KEEL_EXTRACT_MAX_TEXT_CHARS, 10_000_000, 'KEEL_EXTRACT_MAX_TEXT_CHARS')),
      maxAttempts: Math.max(1, int(env.KEEL_EXTRACT_MAX_ATTEMPTS, 3, 'KEEL_EXTRACT_MAX_ATTEMPTS')),
    },
    webhooks: (env.KEEL_INGEST_WEBHOOKS ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean),
    webhookSecret: env.KEEL_INGEST_WEBHOOK_SECRET || undefined,
    webhookAttempts: Math.max(1, int(env.KEEL_INGEST_WEBHOOK_ATTEMPTS, 8, 'KEEL_INGEST_WEBHOOK_ATTEMPTS')),
    webhookBackoffMs: int(env.KEEL_INGEST_WEBHOOK_BACKOFF_MS, 1000, 'KEEL_INGEST_WEBHOOK_BACKOFF_MS'),
    webhookTimeoutMs: Math.max(100, int(env.KEEL_INGEST_WEBHOOK_TIMEOUT_MS, 5000, 'KEEL_INGEST_WEBHOOK_TIMEOUT_MS')),
    webhookQueueLimit: Math.max(1, int(env.KEEL_INGEST_WEBHOOK_QUEUE_LIMIT, 10_000, 'KEEL_INGEST_WEBHOOK_QUEUE_LIMIT')),
    webhookConcurrency: Math.max(1, int(env.KEEL_INGEST_WEBHOOK_CONCURRENCY, 8, 'KEEL_INGEST_WEBHOOK_CONCURRENCY')),
    embeddingUrl: env.KEEL_EMBEDDING_URL?.replace(/\/+$/, '') || undefined,
    embeddingModel: env.KEEL_EMBEDDING_MODEL || 'text-embedding-3-small',
    embeddingApiKey: env.KEEL_EMBEDDING_API_KEY || undefined,
    vectorSaveIntervalMs: Math.max(0, int(env.KEEL_VECTOR_SAVE_INTERVAL_MS, 300_000, 'KEEL_VECTOR_SAVE_INTERVAL_MS')),
    vectorExactLimit: Math.max(0, int(env.KEEL_VECTOR_EXACT_LIMIT, 20_000, 'KEEL_VECTOR_EXACT_LIMIT')),
    memoryModelUrl: env.KEEL_MEMORY_LLM_URL?.replace(/\/+$/, '') || undefined,
    memoryModel: env.KEEL_MEMORY_LLM_MODEL || 'gpt-4o-mini',
    memoryModelApiKey: env.KEEL_MEMORY_LLM_API_KEY || undefined,
    memoryModelTimeoutMs: Math.max(1000, int(env.KEEL_MEMORY_LLM_TIMEOUT_MS, 30_000, 'KEEL_MEMORY_LLM_TIMEOUT_MS')),
    memoryModelRetries: int(env.KEEL_MEMORY_LLM_RETRIES, 2, 'KEEL_MEMORY_LLM_RETRIES'),
    memoryModelContext: int(env.KEEL_MEMORY_LLM_CONTEXT, 100, 'KEEL_MEMORY_LLM_CONTEXT'),
    memoryModelWindowChars: Math.max(1000, int(env.KEEL_MEMORY_LLM_WINDOW_CHARS, 12_000, 'KEEL_MEMORY_LLM_WINDOW_CHARS')),
    memoryModelJsonSchema: bool(env.KEEL_MEMORY_LLM_JSON_SCHEMA, true, 'KEEL_MEMORY_LLM_JSON_SCHEMA'),
  };
}

export const INGESTION_SETTINGS = Symbol('INGESTION_SETTINGS');
