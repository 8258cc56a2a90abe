export interface TextChunk {
  position: number;
  content: string;
  start: number;
  end: number;
}

export interface ChunkOptions {
  /** Upper bound of a chunk in characters (a single longer sentence is cut at this bound). */
  maxChars: number;
  /** Sentences repeated at the start of the next chunk (the reference's 2-sentence overlap). */
  overlapSentences: number;
  /** The overlap never exceeds this many characters. */
  maxOverlapChars: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { maxChars: 1000, overlapSentences: 2, maxOverlapChars: 300 };

interface Sentence {
  text: string;
  start: number;
  end: number;
}

/** Sentences (and blank-line separated blocks) with their offsets in the source; long ones are cut. */
function sentences(text: string, maxChars: number): Sentence[] {
  const out: Sentence[] = [];
  const pattern = /[^.!?\n]+(?:[.!?]+["')\]]*|\n+|$)/g;
  for (const match of text.matchAll(pattern)) {
    const raw = match[0];
    const leading = raw.length - raw.trimStart().length;
    const trimmed = raw.trim();
    if (!trimmed) continue;
    let start = (match.index ?? 0) + leading;
    for (let offset = 0; offset < trimmed.length; offset += maxChars) {
      const piece = trimmed.slice(offset, offset + maxChars);
      out.push({ text: piece, start, end: start + piece.length });
      start += piece.length;
    }
  }
  return out;
}

/** Sentence-aware chunking with overlap and a size bound; offsets point into `text`. */
export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNKING): TextChunk[] {
  const all = sentences(text, options.maxChars);
  const chunks: TextChunk[] = [];
  let i = 0;
  while (i < all.length) {
    let j = i;
    let length = 0;
    while (j < all.length && (j === i || length + all[j].text.length + 1 <= options.maxChars)) {
      length += all[j].text.length + 1;
      j++;
    }
    const start = all[i].start;
    const end = all[j - 1].end;
    chunks.push({ position: chunks.length, content: text.slice(start, end), start, end });
    if (j >= all.length) break;
    // Step back for the overlap, but always advance.
    let back = 0;
    let overlapChars = 0;
    while (back < options.overlapSentences && j - back - 1 > i && overlapChars + all[j - back - 1].text.length <= options.maxOverlapChars) {
      overlapChars += all[j - back - 1].text.length;
      back++;
    }
    i = j - back;
  }
  return chunks;
}
