import { GapTracker } from './gap-tracker';

const limits = { gapWaitMs: 3_000, resendAskEveryMs: 250, forgetOriginMs: 600_000 };

function setup() {
  let now = 1_000;
  const tracker = new GapTracker<string>(() => now, limits);
  const advance = (ms: number) => (now += ms);
  const drain = (origin: string) => {
    const out: string[] = [];
    let next: string | undefined;
    while ((next = tracker.nextReady(origin)) !== undefined) out.push(next);
    return out;
  };
  return { tracker, advance, drain };
}

describe('GapTracker', () => {
  it('delivers an origin in seq order from its first message, asking for nothing', () => {
    const { tracker, drain } = setup();
    tracker.received('a', 5, 'm5');
    expect(drain('a')).toEqual(['m5']);
    tracker.received('a', 6, 'm6');
    tracker.received('a', 7, 'm7');
    expect(drain('a')).toEqual(['m6', 'm7']);
    expect(tracker.resendAfter('a')).toBeUndefined();
  });

  it('drops duplicates and messages already delivered', () => {
    const { tracker, drain } = setup();
    tracker.received('a', 1, 'm1');
    expect(drain('a')).toEqual(['m1']);
    tracker.received('a', 1, 'again');
    expect(drain('a')).toEqual([]);
    tracker.received('a', 3, 'm3');
    tracker.received('a', 3, 'm3 again');
    tracker.received('a', 2, 'm2');
    expect(drain('a')).toEqual(['m2', 'm3 again']);
  });

  it('holds what follows a gap, asks for a resend after the last delivered, and delivers once filled', () => {
    const { tracker, advance, drain } = setup();
    tracker.received('a', 1, 'm1');
    expect(drain('a')).toEqual(['m1']);
    tracker.received('a', 4, 'm4');
    expect(drain('a')).toEqual([]);
    expect(tracker.resendAfter('a')).toBe(1);
    // Not asked again within resendAskEveryMs, then asked again.
    tracker.received('a', 5, 'm5');
    expect(tracker.resendAfter('a')).toBeUndefined();
    advance(250);
    expect(tracker.resendAfter('a')).toBe(1);
    tracker.received('a', 2, 'm2');
    expect(drain('a')).toEqual(['m2']);
    tracker.received('a', 3, 'm3');
    expect(drain('a')).toEqual(['m3', 'm4', 'm5']);
    expect(tracker.resendAfter('a')).toBeUndefined();
    // A filled gap is forgotten: nothing is skipped later.
    advance(10_000);
    expect(tracker.skipExpired()).toEqual([]);
  });

  it('skips a gap nobody filled after gapWaitMs, to the first held message', () => {
    const { tracker, advance, drain } = setup();
    tracker.received('a', 1, 'm1');
    drain('a');
    tracker.received('a', 5, 'm5');
    tracker.received('a', 6, 'm6');
    expect(tracker.resendAfter('a')).toBe(1);
    advance(3_000);
    expect(tracker.skipExpired()).toEqual([]);
    advance(1);
    expect(tracker.skipExpired()).toEqual([{ origin: 'a', missed: 3 }]);
    expect(drain('a')).toEqual(['m5', 'm6']);
    // A late resend of what was skipped is dropped.
    tracker.received('a', 3, 'm3');
    expect(drain('a')).toEqual([]);
  });

  it('learns of missed messages from a head announcement and skips to it when they never come', () => {
    const { tracker, advance, drain } = setup();
    tracker.announced('a', 10);
    expect(tracker.resendAfter('a')).toBeUndefined(); // a new origin starts from its head
    tracker.announced('a', 12);
    expect(drain('a')).toEqual([]);
    expect(tracker.resendAfter('a')).toBe(10);
    advance(3_001);
    expect(tracker.skipExpired()).toEqual([{ origin: 'a', missed: 2 }]);
    tracker.received('a', 13, 'm13');
    expect(drain('a')).toEqual(['m13']);
  });

  it('tracks origins apart, reports their positions, and forgets the silent ones', () => {
    const { tracker, advance, drain } = setup();
    expect(tracker.positions()).toBeUndefined();
    tracker.received('a', 3, 'a3');
    tracker.received('b', 7, 'b7');
    drain('a');
    drain('b');
    expect(tracker.positions()).toEqual({ a: 3, b: 7 });
    advance(600_000);
    tracker.announced('b', 7);
    advance(1);
    tracker.skipExpired();
    expect(tracker.positions()).toEqual({ b: 7 });
  });
});
