import { ReplayBuffer } from './replay-buffer';
import { Utf8Frames } from './utf8-frames';

describe('Utf8Frames', () => {
  const text = 'a é € 😀 中文 z';

  it('never cuts a character, whatever the read boundaries', () => {
    const bytes = Buffer.from(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const frames = new Utf8Frames();
      const first = frames.take([bytes.subarray(0, cut)]);
      const second = frames.take([bytes.subarray(cut)]);
      expect(first.toString('utf8')).not.toContain('\ufffd');
      expect(second.toString('utf8')).not.toContain('\ufffd');
      expect(Buffer.concat([first, second]).toString('utf8')).toBe(text);
    }
  });

  it('passes valid output through untouched and replaces invalid bytes', () => {
    const frames = new Utf8Frames();
    const valid = Buffer.from(text);
    expect(frames.take([valid])).toBe(valid);
    expect(frames.take([Buffer.from([0x61, 0xff, 0x62])]).toString()).toBe('a\ufffdb');
  });

  it('flushes a trailing incomplete sequence when told it is the last output', () => {
    const frames = new Utf8Frames();
    expect(frames.take([Buffer.from([0x61, 0xe2, 0x82])]).toString()).toBe('a');
    expect(frames.take([], true).toString()).toBe('\ufffd');
  });
});

describe('ReplayBuffer', () => {
  it('keeps the newest bytes, starting on a character boundary', () => {
    const replay = new ReplayBuffer(10);
    replay.append(Buffer.from('0123456789'));
    replay.append(Buffer.from('éé€'));
    const kept = replay.take();
    expect(kept.length).toBeLessThanOrEqual(10);
    expect(kept.toString()).toBe('789éé€'.slice(-kept.toString().length));
    expect(kept.toString()).not.toContain('\ufffd');
    expect(replay.take().length).toBe(0);
  });

  it('keeps nothing when disabled', () => {
    const replay = new ReplayBuffer(0);
    replay.append(Buffer.from('x'));
    expect(replay.take().length).toBe(0);
  });
});
