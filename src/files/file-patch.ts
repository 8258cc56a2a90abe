/** A structured patch as the reference's `FileContent.patch` (jsdiff's `structuredPatch`). */
export interface FilePatch {
  oldFileName: string;
  newFileName: string;
  oldHeader: string;
  newHeader: string;
  hunks: { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of one file's `git diff` output, under the reference's names and `old`/`new` headers. */
export function parseGitDiff(fileName: string, diff: string): FilePatch {
  const patch: FilePatch = {
    oldFileName: fileName,
    newFileName: fileName,
    oldHeader: 'old',
    newHeader: 'new',
    hunks: [],
  };
  let hunk: FilePatch['hunks'][number] | undefined;
  const lines = diff.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    const header = HUNK_HEADER.exec(line);
    if (header) {
      hunk = {
        oldStart: Number(header[1]),
        oldLines: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newLines: header[4] === undefined ? 1 : Number(header[4]),
        lines: [],
      };
      patch.hunks.push(hunk);
    } else if (hunk && (line[0] === ' ' || line[0] === '+' || line[0] === '-' || line[0] === '\\')) {
      hunk.lines.push(line);
    }
  }
  return patch;
}

/** The patch as unified-diff text, in jsdiff's `formatPatch` layout (what the reference returns as `diff`). */
export function formatPatch(patch: FilePatch): string {
  const out: string[] = [];
  if (patch.oldFileName === patch.newFileName) out.push(`Index: ${patch.oldFileName}`);
  out.push('===================================================================');
  out.push(`--- ${patch.oldFileName}\t${patch.oldHeader}`);
  out.push(`+++ ${patch.newFileName}\t${patch.newHeader}`);
  for (const h of patch.hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines);
  }
  return `${out.join('\n')}\n`;
}
