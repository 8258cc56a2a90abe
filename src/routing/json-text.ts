import { isJsonObject } from '../common/validation/request-fields';

/** Reads a JSON object column; v3 answers `{}` for text that does not parse. */
export function parseJsonObject(text: string | null | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** Deep copy with object keys sorted, so equal rows always serialize to equal bytes. */
export function canonical<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => canonical(v)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort())
      out[key] = canonical((value as Record<string, unknown>)[key]);
    return out as T;
  }
  return value;
}
