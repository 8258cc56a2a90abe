import fuzzysort from 'fuzzysort';

/**
 * Fuzzy file-name matching for `find.files`, with fuzzysort as the reference does: every character
 * of each whitespace-separated query term in order, case-insensitively; runs of consecutive
 * characters, word starts and short targets rank first.
 */

/** The `limit` best matches, best first. */
export function fuzzyFilter(query: string, targets: string[], limit: number): string[] {
  return fuzzysort.go(query, targets, { limit }).map((result) => result.target);
}
