import fuzzysort from 'fuzzysort';

/**
 * Fuzzy file-name matching for `find.files`, with fuzzysort as the reference does: every character
 * of each whitespace-separated query term in order, case-insensitively; runs of consecutive
 * characters, word starts and short targets rank first.
 */

/** Score of `target` for `query` (higher is better, at most 1), or undefined when it does not match. */
export function fuzzyScore(query: string, target: string): number | undefined {
  return fuzzysort.single(query, target)?.score;
}

/** The `limit` best matches, best first. */
export function fuzzyFilter(query: string, targets: string[], limit: number): string[] {
  return fuzzysort.go(query, targets, { limit }).map((result) => result.target);
}
