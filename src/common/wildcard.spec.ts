import { wildcardLookup, wildcardMatch } from './wildcard';

describe('wildcard', () => {
  it('matches * as any run and ? as one character, anchored, literally otherwise', () => {
    expect(wildcardMatch('git status', 'git *')).toBe(true);
    expect(wildcardMatch('src/a.ts', 'src/?.ts')).toBe(true);
    expect(wildcardMatch('src/ab.ts', 'src/?.ts')).toBe(false);
    expect(wildcardMatch('srcXa.ts', 'src.a.ts')).toBe(false);
    expect(wildcardMatch('a(b)+c', 'a(b)+c')).toBe(true);
    expect(wildcardMatch('line one\nline two', 'line*two')).toBe(true);
  });

  it('lets "cmd *" cover the bare command, not a longer word', () => {
    expect(wildcardMatch('ls', 'ls *')).toBe(true);
    expect(wildcardMatch('ls -la', 'ls *')).toBe(true);
    expect(wildcardMatch('lsof', 'ls *')).toBe(false);
  });

  it('looks up the most specific matching rule', () => {
    const rules = { '*': 'ask', 'git *': 'allow', 'git push *': 'deny' };
    expect(wildcardLookup('git push origin', rules)).toBe('deny');
    expect(wildcardLookup('git status', rules)).toBe('allow');
    expect(wildcardLookup('rm -rf /', rules)).toBe('ask');
    expect(wildcardLookup('x', {})).toBeUndefined();
  });
});
