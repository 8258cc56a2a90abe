import { RelayOutbox, SentHistory } from './relay-outbox';

const entry = (seq: number, bytes: number) => ({ seq, inline: 'x'.repeat(bytes) });

describe('RelayOutbox', () => {
  it('takes batches oldest first, at most batchMessages each', () => {
    const outbox = new RelayOutbox({ maxPendingBytes: 1_000, batchMessages: 3, batchBytes: 1_000 });
    for (let seq = 1; seq <= 5; seq++) outbox.offer(entry(seq, 1));
    const first = outbox.nextBatch();
    expect(first.map((e) => e.seq)).toEqual([1, 2, 3]);
    outbox.remove(first);
    expect(outbox.nextBatch().map((e) => e.seq)).toEqual([4, 5]);
  });

  it('closes a batch once it reaches batchBytes, the message crossing it included', () => {
    const outbox = new RelayOutbox({ maxPendingBytes: 1_000, batchMessages: 10, batchBytes: 100 });
    for (const [seq, bytes] of [[1, 60], [2, 60], [3, 10]]) outbox.offer(entry(seq, bytes));
    expect(outbox.nextBatch().map((e) => e.seq)).toEqual([1, 2]);
    // One message larger than batchBytes still goes, alone.
    const big = new RelayOutbox({ maxPendingBytes: 1_000, batchMessages: 10, batchBytes: 100 });
    big.offer(entry(1, 500));
    big.offer(entry(2, 1));
    expect(big.nextBatch().map((e) => e.seq)).toEqual([1]);
  });

  it('refuses messages past maxPendingBytes until sent ones free the room', () => {
    const outbox = new RelayOutbox({ maxPendingBytes: 100, batchMessages: 10, batchBytes: 1_000 });
    expect(outbox.offer(entry(1, 60))).toBe(true);
    expect(outbox.offer(entry(2, 40))).toBe(true);
    expect(outbox.offer(entry(3, 1))).toBe(false);
    expect(outbox.size).toBe(2);
    outbox.remove(outbox.nextBatch());
    expect(outbox.size).toBe(0);
    expect(outbox.offer(entry(3, 100))).toBe(true);
  });
});

describe('SentHistory', () => {
  it('answers a resend with what followed the seq, in order and in batches', () => {
    const history = new SentHistory(() => 0, { bytes: 1_000, ms: 1_000 });
    for (let seq = 1; seq <= 5; seq++) history.keep(seq, `m${seq}`);
    expect(history.after(1, 2)).toEqual([['m2', 'm3'], ['m4', 'm5']]);
    expect(history.after(5, 2)).toEqual([]);
  });

  it('forgets the oldest past its byte and age bounds', () => {
    let now = 0;
    const history = new SentHistory(() => now, { bytes: 6, ms: 1_000 });
    for (let seq = 1; seq <= 4; seq++) history.keep(seq, `m${seq}`);
    expect(history.after(0, 10)).toEqual([['m2', 'm3', 'm4']]);
    now = 1_001;
    history.keep(5, 'm5');
    expect(history.after(0, 10)).toEqual([['m5']]);
  });

  it('keeps the newest in order while forgetting many of the oldest', () => {
    const history = new SentHistory(() => 0, { bytes: 5_000, ms: 1_000 });
    const payload = (seq: number) => String(seq).padStart(5, '0');
    for (let seq = 1; seq <= 10_000; seq++) history.keep(seq, payload(seq));
    const expected = Array.from({ length: 1_000 }, (_, i) => payload(9_001 + i));
    expect(history.after(0, 100_000)).toEqual([expected]);
    expect(history.after(9_998, 10)).toEqual([['09999', '10000']]);
  });

  it('keeps text of any size and script exactly, through many wraps of its buffer', () => {
    const history = new SentHistory(() => 0, { bytes: 64, ms: 1_000 });
    const payload = (seq: number) => `{"seq":${seq},"t":"${'é✓🚀'.repeat(seq % 4)}"}`;
    for (let seq = 1; seq <= 500; seq++) history.keep(seq, payload(seq));
    const [kept] = history.after(0, 1_000);
    // The newest few, in order, each whole, and together within the 64 bytes.
    expect(kept[kept.length - 1]).toBe(payload(500));
    expect(kept).toEqual(kept.map((_, i) => payload(500 - kept.length + 1 + i)));
    expect(kept.reduce((sum, m) => sum + Buffer.byteLength(m), 0)).toBeLessThanOrEqual(64);
    expect(kept.length).toBeGreaterThanOrEqual(2);
    // A message larger than the whole bound is not kept, and takes nothing else with it.
    history.keep(501, 'x'.repeat(65));
    expect(history.after(0, 1_000)).toEqual([kept]);
  });
});
