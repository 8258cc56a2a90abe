/**
 * The reference's Wildcard.match, for permission rules and tool rules alike: `*` is any run of
 * characters, `?` one character, anchored. A pattern ending in " *" also matches the bare command
 * ("ls *" matches "ls").
 */
export function wildcardMatch(text: string, pattern: string): boolean {
  let source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  if (source.endsWith(' .*')) source = `${source.slice(0, -3)}( .*)?`;
  return new RegExp(`^${source}$`, 's').test(text);
}

/** The value of the most specific matching key: keys sorted by length then name, the last match wins. */
export function wildcardLookup<T>(text: string, rules: Record<string, T>): T | undefined {
  const keys = Object.keys(rules).sort((a, b) => a.length - b.length || a.localeCompare(b));
  let found: T | undefined;
  for (const key of keys) if (wildcardMatch(text, key)) found = rules[key];
  return found;
}
