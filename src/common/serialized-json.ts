/**
 * A response body serialized once however many responses send it: a shared read (or a kept list)
 * answers many requests with the same value, and JSON.stringify of a long list (and its UTF-8
 * encoding) is most of what such a response costs. KeelHttpAdapter sends `bytes` as they are. The
 * value must not change once handed out.
 */
export class SerializedJson<T> {
  private encoded?: Buffer;

  constructor(readonly value: T) {}

  get bytes(): Buffer {
    return (this.encoded ??= Buffer.from(JSON.stringify(this.value)));
  }
}
