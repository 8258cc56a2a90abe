import { createHash } from 'node:crypto';
import { ConsoleSessions } from './console-session';

describe('ConsoleSessions', () => {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  let now = 1_000_000;
  const sessions = new ConsoleSessions(digest('opencode:secret'), 3_600_000, () => now);

  it('accepts its own token until it expires, and refuses it after', () => {
    const { token, expiresAt } = sessions.issue();
    expect(sessions.check(token)).toBe(expiresAt);
    now = expiresAt;
    expect(sessions.check(token)).toBeUndefined();
  });

  it('refuses a token signed for another password, a changed expiry, and a revoked one', () => {
    const { token } = sessions.issue();
    expect(new ConsoleSessions(digest('opencode:other'), 3_600_000, () => now).check(token)).toBeUndefined();
    const [v, expiry, nonce, mac] = token.split('.');
    expect(sessions.check([v, (parseInt(expiry, 36) + 1).toString(36), nonce, mac].join('.'))).toBeUndefined();
    expect(sessions.check(undefined)).toBeUndefined();
    expect(sessions.check('v1.x.y')).toBeUndefined();
    sessions.revoke(token);
    expect(sessions.check(token)).toBeUndefined();
    expect(sessions.check(sessions.issue().token)).toBeDefined();
  });
});
