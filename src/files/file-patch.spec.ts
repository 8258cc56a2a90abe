import { formatPatch, parseGitDiff } from './file-patch';

const GIT_DIFF = `diff --git a/notes.md b/notes.md
index 3b18e51..a9c7a51 100644
--- a/notes.md
+++ b/notes.md
@@ -1,3 +1,3 @@
 one
-two
+zwei
 three
@@ -10 +10,2 @@ heading
-ten
+zehn
+elf
\\ No newline at end of file
`;

describe('file patches from git diff', () => {
  it('reads every hunk, with single-line counts defaulting to 1 and the no-newline marker kept', () => {
    expect(parseGitDiff('notes.md', GIT_DIFF)).toEqual({
      oldFileName: 'notes.md',
      newFileName: 'notes.md',
      oldHeader: 'old',
      newHeader: 'new',
      hunks: [
        { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' one', '-two', '+zwei', ' three'] },
        {
          oldStart: 10,
          oldLines: 1,
          newStart: 10,
          newLines: 2,
          lines: ['-ten', '+zehn', '+elf', '\\ No newline at end of file'],
        },
      ],
    });
  });

  it('formats the patch as jsdiff does (Index line, tab-separated headers)', () => {
    expect(formatPatch(parseGitDiff('notes.md', GIT_DIFF))).toBe(
      [
        'Index: notes.md',
        '===================================================================',
        '--- notes.md\told',
        '+++ notes.md\tnew',
        '@@ -1,3 +1,3 @@',
        ' one',
        '-two',
        '+zwei',
        ' three',
        '@@ -10,1 +10,2 @@',
        '-ten',
        '+zehn',
        '+elf',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    );
  });

  it('is empty for an empty diff', () => {
    expect(parseGitDiff('a', '').hunks).toEqual([]);
  });
});
