import { itemPattern, itemRefusal } from './item-patterns';

describe('itemPattern (includeItems / excludeItems)', () => {
  it.each([
    ['*.md', 'README.md', true],
    ['*.md', 'docs/guide.md', true],
    ['*.md', 'guide.mdx', false],
    ['node_modules', 'node_modules/x/index.js', true],
    ['node_modules', 'src/node_modules_x.ts', false],
    ['*.test.*', 'src/a.test.ts', true],
    ['docs/**', 'docs/a/b.md', true],
    ['docs/**', 'src/docs/a.md', false],
    ['src/**/*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/a/b/c.ts', true],
    ['src/**/*.ts', 'src/a/b/c.js', false],
    ['build', 'build', true],
  ])('%s against %s is %s', (pattern, name, expected) => {
    expect(itemPattern(pattern)(name)).toBe(expected);
  });

  it('exclude wins over include; an include list refuses names matching none of it', () => {
    expect(itemRefusal('docs/a.test.md', ['*.md'], ['*.test.*'])).toMatch(/excludeItems pattern "\*\.test\.\*"/);
    expect(itemRefusal('notes.txt', ['*.md'], [])).toMatch(/none of the organisation's includeItems/);
    expect(itemRefusal('notes.md', ['*.md'], ['*.txt'])).toBeUndefined();
    expect(itemRefusal('anything', [], [])).toBeUndefined();
  });
});
