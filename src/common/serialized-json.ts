/**
 * A response body serialized once however many responses send it: a shared read (or a kept list)
 * answers many requests with the same value, and JSON.stringify of a long list (and its UTF-8
 * encoding) is most of what such a response costs. KeelHttpAdapter sends `bytes` as they are. The
 * value must not change once handed out.
 */
export class SerializedJson<T> {
  private encoded?: Buffer;

  private constructor(private readonly source: { value: T } | { json: string }) {}

  static of<T>(value: T): SerializedJson<T> {
    return new SerializedJson({ value });
  }

  /** Text already serialized, from parts serialized earlier (the caller vouches that it is a `T`). */
  static ofJson<T>(json: string): SerializedJson<T> {
    return new SerializedJson<T>({ json });
  }

  get bytes(): Buffer {
    return (this.encoded ??= Buffer.from('json' in this.source ? this.source.json : JSON.stringify(this.source.value)));
  }
}

const JSON_TEXT = Symbol('keel:json');
type WithJson = { [JSON_TEXT]?: string };

/**
 * The JSON of an object, made once and kept on the object itself as a non-enumerable symbol
 * property (which JSON.stringify, Object.keys and a spread copy all skip): a WeakMap entry each
 * would be an ephemeron that every collection must trace, for objects that mostly die young. The
 * object must not change once its JSON is kept.
 */
export function cachedJson<T extends object>(target: T, make: (target: T) => string): string {
  let json = (target as WithJson)[JSON_TEXT];
  if (json === undefined) {
    json = make(target);
    if (Object.isExtensible(target)) Object.defineProperty(target, JSON_TEXT, { value: json });
  }
  return json;
}

/** The JSON kept on an object by `cachedJson` or `keepJson`, if any (undefined for anything else). */
export function knownJson(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? (value as WithJson)[JSON_TEXT] : undefined;
}

/**
 * Serialises a value now and keeps its JSON on it, for a value that one request both answers and
 * publishes (a new session goes in two events and the response): the events' JSON and the answer
 * reuse it instead of each serialising it again. The value must not change afterwards.
 */
export function keepJson<T extends object>(value: T): T {
  cachedJson(value, JSON.stringify);
  return value;
}
