/** The reference's Wildcard.match: `*` is any run, `?` one character; "cmd *" also covers bare "cmd". */
export function wildcardMatch(value: string, pattern: string): boolean {
  const body = pattern
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const source = pattern.endsWith(' *') ? `^${body.slice(0, -3)}( .*)?$` : `^${body}$`;
  return new RegExp(source, 's').test(value);
}
