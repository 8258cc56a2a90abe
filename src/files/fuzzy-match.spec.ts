import { fuzzyFilter } from './fuzzy-match';

const matches = (query: string, target: string) => fuzzyFilter(query, [target], 1).length === 1;

describe('fuzzy file-name matching', () => {
  it('matches characters in order, case-insensitively, and rejects anything else', () => {
    expect(matches('sut', 'src/util/strings.ts')).toBe(true);
    expect(matches('SUT', 'src/util/strings.ts')).toBe(true);
    expect(matches('xyz', 'src/util/strings.ts')).toBe(false);
    expect(matches('stringsz', 'src/util/strings.ts')).toBe(false);
  });

  it('needs every whitespace-separated term', () => {
    expect(matches('util strings', 'src/util/strings.ts')).toBe(true);
    expect(matches('util missing', 'src/util/strings.ts')).toBe(false);
  });

  it('ranks exact base names, then consecutive word-start runs, above scattered matches', () => {
    const targets = ['docs/a-long-index-of-things.md', 'src/index.ts', 'lib/in/dex/x.ts', 'index'];
    expect(fuzzyFilter('index', targets, 10)).toEqual([
      'index',
      'src/index.ts',
      'docs/a-long-index-of-things.md',
      'lib/in/dex/x.ts',
    ]);
    expect(fuzzyFilter('appc', ['src/app.controller.ts', 'src/apple/cart.ts', 'a/p/p/c.ts'], 1)).toEqual([
      'src/app.controller.ts',
    ]);
  });

  it('keeps at most `limit` results', () => {
    expect(fuzzyFilter('a', ['a', 'ab', 'abc', 'abcd'], 2)).toEqual(['a', 'ab']);
  });
});
