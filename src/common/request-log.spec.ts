import { redactedQuery } from './request-log';

describe('redactedQuery', () => {
  it('replaces auth_token values however the key is spelled, and keeps everything else as received', () => {
    expect(redactedQuery('directory=%2Ftmp%2Fa&auth_token=c2VjcmV0')).toBe('directory=%2Ftmp%2Fa&auth_token=[redacted]');
    expect(redactedQuery('auth%5Ftoken=x&auth_token[]=y&auth_token[a]=z')).toBe('auth%5Ftoken=[redacted]&auth_token[]=[redacted]&auth_token[a]=[redacted]');
    expect(redactedQuery('auth_token')).toBe('auth_token=[redacted]');
  });

  it('leaves other keys alone, malformed encodings included', () => {
    expect(redactedQuery('auth_tokens=x&%E0%A4%A=1&x=auth_token')).toBe('auth_tokens=x&%E0%A4%A=1&x=auth_token');
  });
});
