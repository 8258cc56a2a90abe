import { ascendingId, descendingId, documentId, hexId } from './ids';

describe('ids', () => {
  it('have the opencode shape: prefix, 12 hex chars of time and counter, 14 base62 chars', () => {
    expect(ascendingId('msg')).toMatch(/^msg_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    expect(descendingId('ses')).toMatch(/^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
  });

  it('ascend (messages, parts) and descend (sessions) in plain string order, even within one millisecond', () => {
    const up = Array.from({ length: 500 }, () => ascendingId('prt'));
    const down = Array.from({ length: 500 }, () => descendingId('ses'));
    expect([...up].sort()).toEqual(up);
    expect([...down].sort()).toEqual([...down].reverse());
  });

  it('make routing-manager and memory ids of their own formats', () => {
    expect(hexId()).toMatch(/^[0-9a-f]{16}$/);
    expect(documentId()).toMatch(/^[0-9A-Za-z]{22}$/);
  });
});
