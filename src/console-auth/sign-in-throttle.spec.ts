import { SignInThrottle } from './sign-in-throttle';

describe('SignInThrottle', () => {
  let now: number;
  const throttle = () => new SignInThrottle(3, 60_000, () => now);

  beforeEach(() => (now = 1_000_000));

  it('lets an address fail up to the limit, then makes it wait until its oldest failure leaves the window', () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) {
      expect(t.retryAfterSeconds('a')).toBe(0);
      t.failed('a');
      now += 10_000;
    }
    // Failures at 0 s, 10 s and 20 s; now is 30 s: the first leaves the window at 60 s.
    expect(t.retryAfterSeconds('a')).toBe(30);
    expect(t.retryAfterSeconds('b')).toBe(0);
    now += 30_000;
    expect(t.retryAfterSeconds('a')).toBe(0);
  });

  it('forgets an address that signs in', () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) t.failed('a');
    expect(t.retryAfterSeconds('a')).toBeGreaterThan(0);
    t.succeeded('a');
    expect(t.retryAfterSeconds('a')).toBe(0);
  });
});
