import { fuzzyFilter, fuzzyScore } from './fuzzy-match';

describe('fuzzy file-name matching', () => {
  it('matches characters in order, case-insensitively, and rejects anything else', () => {
    expect(fuzzyScore('sut', 'src/util/strings.ts')).toBeDefined();
    expect(fuzzyScore('SUT', 'src/util/strings.ts')).toBeDefined();
    expect(fuzzyScore('xyz', 'src/util/strings.ts')).toBeUndefined();
    expect(fuzzyScore('stringsz', 'src/util/strings.ts')).toBeUndefined();
  });

  it('needs every whitespace-separated term', () => {
    expect(fuzzyScore('util strings', 'src/util/strings.ts')).toBeDefined();
    expect(fuzzyScore('util missing', 'src/util/strings.ts')).toBeUndefined();
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
