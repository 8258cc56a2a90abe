import { aiSdk } from '../providers/ai-sdk';

const RETRY_INITIAL_DELAY_MS = 2000;
const RETRY_MAX_DELAY_MS = 30_000;

/** Why a provider error is worth retrying (the `retry` status message), or undefined when it is not. */
export function retryReason(error: unknown): string | undefined {
  if (!aiSdk().APICallError.isInstance(error)) return undefined;
  const body = (error.responseBody ?? '').toLowerCase();
  if (error.statusCode === 429 || body.includes('rate limit') || body.includes('rate_limit')) return 'Rate Limited';
  if (error.statusCode === 529 || body.includes('overloaded')) return 'Provider is overloaded';
  if (error.isRetryable || (error.statusCode !== undefined && error.statusCode >= 500)) return error.message || 'Provider error';
  return undefined;
}

/** `retry-after-ms`, then `retry-after` (seconds or an HTTP date), else 2 s × 2^(attempt−1) capped at 30 s. */
export function retryDelay(error: unknown, attempt: number): number {
  const headers = aiSdk().APICallError.isInstance(error) ? (error.responseHeaders ?? {}) : {};
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number(lower['retry-after-ms']);
  if (Number.isFinite(ms) && ms >= 0 && lower['retry-after-ms'] !== undefined) return ms;
  const after = lower['retry-after'];
  if (after !== undefined) {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  }
  return Math.min(RETRY_INITIAL_DELAY_MS * 2 ** (attempt - 1), RETRY_MAX_DELAY_MS);
}
