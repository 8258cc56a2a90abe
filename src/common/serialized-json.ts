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
