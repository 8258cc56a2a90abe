import { mergeUpsert, StoredForMerge } from './document-merge';

const stored = (over: Partial<StoredForMerge> = {}): StoredForMerge => ({ content: 'first part', raw: null, metadata: null, status: 'done', ...over });

describe('mergeUpsert (a document sent again under its customId)', () => {
  it('takes the whole content resent with more at its end, without starting extraction over', () => {
    const merged = mergeUpsert(stored(), { content: 'first part and more', source: 'text' });
    expect(merged).toMatchObject({ content: 'first part and more', contentChanged: true, requeue: true, resetDreamed: false });
  });

  it('keeps the stored content when the end of it is sent again', () => {
    const merged = mergeUpsert(stored(), { content: 'part', source: 'text' });
    expect(merged).toMatchObject({ content: 'first part', contentChanged: false, requeue: false });
  });

  it('appends a new part on its own line', () => {
    expect(mergeUpsert(stored(), { content: 'second part', source: 'text' }).content).toBe('first part\nsecond part');
  });

  it('takes the content as sent when nothing was stored', () => {
    expect(mergeUpsert(stored({ content: null }), { content: 'new', source: 'text' })).toMatchObject({ content: 'new', contentChanged: true });
  });

  it('replaces everything with a file, even with the same content', () => {
    const merged = mergeUpsert(stored({ content: '' }), { content: '', source: 'file' });
    expect(merged).toMatchObject({ content: '', contentChanged: true, requeue: true, resetDreamed: true });
  });

  it('queues a failed document again even when its content is unchanged', () => {
    expect(mergeUpsert(stored({ status: 'failed' }), { content: 'first part', source: 'text' })).toMatchObject({ contentChanged: false, requeue: true });
  });

  it('merges metadata key by key, the new value winning', () => {
    const merged = mergeUpsert(stored({ metadata: JSON.stringify({ a: 1, b: 'old' }) }), { content: 'first part', source: 'text', metadata: { b: 'new', c: true } });
    expect(merged.metadata).toEqual({ a: 1, b: 'new', c: true });
  });

  it('merges conversation turns and stores them as raw', () => {
    const turn1 = { role: 'user' as const, content: 'hi' };
    const turn2 = { role: 'assistant' as const, content: 'hello' };
    const merged = mergeUpsert(stored({ content: 'user: hi', raw: JSON.stringify([turn1]) }), { content: 'assistant: hello', source: 'conversation', messages: [turn2] });
    expect(merged.content).toBe('user: hi\nassistant: hello');
    expect(JSON.parse(merged.raw!)).toEqual([turn1, turn2]);
    expect(merged.contentChanged).toBe(true);
  });

  it('keeps the stored raw when no messages are sent', () => {
    expect(mergeUpsert(stored({ raw: '[1]' }), { content: 'x', source: 'text' }).raw).toBe('[1]');
  });
});
