import { ReadBackChecksum, sameInstantText, TableChecksum } from './tables';

describe('sameInstantText', () => {
  it.each([
    ['2026-11-27 06:12:33.470', '2026-11-27 06:12:33.47'],
    ['2026-11-27 06:12:33.47', '2026-11-27 06:12:33.47'],
    ['2026-11-27 06:12:33.000', '2026-11-27 06:12:33'],
    ['2026-11-27 06:12:33', '2026-11-27 06:12:33'],
    ['2026-11-27T06:12:33.100Z', '2026-11-27T06:12:33.1Z'],
    ['2026-11-27 06:12:33.500+00', '2026-11-27 06:12:33.5+00'],
    ['2026-11-27 06:12:33.105', '2026-11-27 06:12:33.105'],
  ])('reads %s as %s', (text, expected) => {
    expect(sameInstantText(text)).toBe(expected);
  });

  it('leaves what is not a timestamp as it is', () => {
    for (const value of ['1.50', 'version 2026-11-27 06:12:33.470', '2026-11-27 06:12:33.470 later', 10.5, null, { $b64: 'AA==' }]) {
      expect(sameInstantText(value)).toEqual(value);
    }
  });
});

describe('ReadBackChecksum', () => {
  it('agrees on a timestamp written by SQLite and read back from PostgreSQL, where the exact checksum does not', () => {
    const written = [['a', '2026-11-27 06:12:33.470', 3]];
    const readBack = [['a', '2026-11-27 06:12:33.47', 3]];
    const checksum = (rows: (string | number)[][], Kind: typeof TableChecksum) => {
      const c = new Kind();
      for (const row of rows) c.add(row);
      return c.digest();
    };
    expect(checksum(written, ReadBackChecksum)).toBe(checksum(readBack, ReadBackChecksum));
    expect(checksum(written, TableChecksum)).not.toBe(checksum(readBack, TableChecksum));
    expect(checksum(written, ReadBackChecksum)).not.toBe(checksum([['a', '2026-11-27 06:12:33.48', 3]], ReadBackChecksum));
  });
});
