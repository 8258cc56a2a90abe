/**
 * Reads of one key shared by the requests that wait for them, never older than a request: a request
 * that arrives while a read of its key is in flight (which may have started before a write it was told
 * of) waits for the next read, which starts when that one ends and answers every request that arrived
 * meanwhile. So each answer reflects at least every write committed before its request arrived, on any
 * replica, with one statement per burst of requests instead of one each.
 */
export class SharedReads<K, V> {
  private readonly slots = new Map<K, { current: Promise<V>; next?: Promise<V> }>();

  constructor(private readonly read: (key: K) => Promise<V>) {}

  get(key: K): Promise<V> {
    const slot = this.slots.get(key);
    if (!slot) return this.start(key);
    const after = () => this.start(key);
    return (slot.next ??= slot.current.then(after, after));
  }

  private start(key: K): Promise<V> {
    const current = this.read(key);
    const slot: { current: Promise<V>; next?: Promise<V> } = { current };
    this.slots.set(key, slot);
    const settled = () => {
      if (this.slots.get(key) === slot) this.slots.delete(key);
    };
    current.then(settled, settled);
    return current;
  }
}
