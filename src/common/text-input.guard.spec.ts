import { NUL_MESSAGE, nulIssues } from './text-input.guard';

describe('nulIssues', () => {
  it('names every string and key holding a NUL by its path, under a given prefix', () => {
    const body = { a: 'ok', b: ['x', 'y\0'], c: { 'k\0': 'v', d: [{ e: '\0' }] } };
    expect(nulIssues(body, ['body'])).toEqual([
      { code: 'invalid_string', path: ['body', 'b', 1], message: NUL_MESSAGE },
      { code: 'invalid_string', path: ['body', 'c', 'k\0'], message: `key ${NUL_MESSAGE}` },
      { code: 'invalid_string', path: ['body', 'c', 'd', 0, 'e'], message: NUL_MESSAGE },
    ]);
  });

  it('finds nothing in clean values, bytes and scalars', () => {
    expect(nulIssues({ a: [1, true, null, 'text'], b: Buffer.from([0]) })).toEqual([]);
    expect(nulIssues('plain')).toEqual([]);
  });

  it('walks a body of 200,000 keys', () => {
    const body = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i === 199_999 ? '\0' : { a: 1 }]));
    expect(nulIssues(body).map((i) => i.path)).toEqual([['k199999']]);
  });
});
