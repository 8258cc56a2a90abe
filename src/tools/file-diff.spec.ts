import { fileDiff } from './file-diff';

describe('fileDiff', () => {
  it('gives the unified diff opencode shows: Index header, the path on both sides, counted lines', () => {
    expect(fileDiff('/w/a.txt', '# Notes\nkept\n', '# Changed notes\nkept\nadded\n')).toEqual({
      file: '/w/a.txt',
      patch:
        'Index: /w/a.txt\n===================================================================\n--- /w/a.txt\n+++ /w/a.txt\n' +
        '@@ -1,2 +1,3 @@\n-# Notes\n+# Changed notes\n kept\n+added\n',
      additions: 2,
      deletions: 1,
    });
  });

  it('diffs a new file from nothing, noting a missing final newline', () => {
    expect(fileDiff('/w/new.txt', '', 'x')?.patch).toBe(
      'Index: /w/new.txt\n===================================================================\n--- /w/new.txt\n+++ /w/new.txt\n' +
        '@@ -0,0 +1,1 @@\n+x\n\\ No newline at end of file\n',
    );
  });

  it('removes the indentation every non-blank line shares, as the reference does', () => {
    const patch = fileDiff('/w/b.ts', '    a = 1\n\n      b = 2\n', '    a = 3\n\n      b = 2\n')!.patch;
    expect(patch.split('\n').slice(4)).toEqual(['@@ -1,3 +1,3 @@', '-a = 1', '+a = 3', ' ', '   b = 2', '']);
  });

  it('gives no diff rather than holding the event loop on a rewrite too large to diff quickly', () => {
    const lines = (tag: string) => Array.from({ length: 40_000 }, (_, i) => `${tag} ${i}`).join('\n');
    expect(fileDiff('/w/big.txt', lines('old'), lines('new'))).toBeUndefined();
  });
});
