/**
 * Fuzzy file-name matching for `find.files` (the reference uses fuzzysort): every character of each
 * whitespace-separated query term must appear in order, case-insensitively. Scores favour runs of
 * consecutive characters, matches at word starts (after `/ . _ -`, or a camelCase hump), matches
 * inside the base name, and short paths.
 */

const SEPARATORS = new Set(['/', '.', '_', '-', ' ', '\\']);

function isWordStart(target: string, i: number): boolean {
  if (i === 0) return true;
  const prev = target[i - 1];
  if (SEPARATORS.has(prev)) return true;
  return prev === prev.toLowerCase() && target[i] !== target[i].toLowerCase();
}

/** Best score of one term against `target`, trying each position of its first character as the anchor. */
function termScore(term: string, target: string, lower: string): number | undefined {
  const base = lower.replace(/\/$/, '').lastIndexOf('/') + 1;
  let best: number | undefined;
  for (let anchor = lower.indexOf(term[0]); anchor >= 0; anchor = lower.indexOf(term[0], anchor + 1)) {
    let score = 0;
    let j = anchor;
    let previous = -2;
    let matched = 0;
    for (const ch of term) {
      j = lower.indexOf(ch, j);
      if (j < 0) break;
      score += 1;
      if (j === previous + 1) score += 5;
      if (isWordStart(target, j)) score += 8;
      if (j >= base) score += 3;
      previous = j;
      matched++;
      j++;
    }
    if (matched < term.length) break; // later anchors only leave fewer characters to match
    score -= (previous - anchor + 1 - term.length) * 0.5; // gaps inside the match
    if (best === undefined || score > best) best = score;
  }
  return best;
}

/** Score of `target` for `query` (higher is better), or undefined when it does not match. */
export function fuzzyScore(query: string, target: string): number | undefined {
  const lower = target.toLowerCase();
  let total = 0;
  for (const term of query.toLowerCase().split(/\s+/).filter(Boolean)) {
    const score = termScore(term, target, lower);
    if (score === undefined) return undefined;
    total += score;
    const name = lower.replace(/\/$/, '').slice(lower.replace(/\/$/, '').lastIndexOf('/') + 1);
    if (name === term) total += 50;
    else if (name.startsWith(term)) total += 20;
  }
  return total - target.length * 0.1;
}

/** The `limit` best matches, best first; ties go to the shorter, then the alphabetically first path. */
export function fuzzyFilter(query: string, targets: string[], limit: number): string[] {
  const scored: { target: string; score: number }[] = [];
  for (const target of targets) {
    const score = fuzzyScore(query, target);
    if (score !== undefined) scored.push({ target, score });
  }
  scored.sort(
    (a, b) => b.score - a.score || a.target.length - b.target.length || (a.target < b.target ? -1 : 1),
  );
  return scored.slice(0, limit).map((s) => s.target);
}
