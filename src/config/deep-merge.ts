export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Objects merge key by key, the later source wins; arrays and scalars are replaced. */
export function deepMerge<T extends JsonObject>(target: T, source: JsonObject): T {
  const result: JsonObject = { ...target };
  for (const [key, value] of Object.entries(source)) {
    const existing = result[key];
    result[key] = isPlainObject(existing) && isPlainObject(value) ? deepMerge(existing, value) : value;
  }
  return result as T;
}

/**
 * The config merge of the reference: a deep merge where `plugin` and `instructions` lists
 * accumulate across sources (deduplicated) instead of being replaced.
 */
export function mergeConfig<T extends JsonObject>(target: T, source: JsonObject): T {
  const merged: JsonObject = deepMerge(target, source);
  for (const key of ['plugin', 'instructions']) {
    const before = target[key];
    const after = source[key];
    if (Array.isArray(before) && Array.isArray(after)) merged[key] = [...new Set([...before, ...after])];
  }
  return merged as T;
}
