/**
 * `includeItems` / `excludeItems` patterns, gitignore-style: a pattern without `/` matches any
 * segment of the name (`node_modules`, `*.md`, `*.test.*`); one with `/` matches the whole name from
 * its start (`docs/**`). `*` stays inside a segment, `**` crosses them.
 */
export function itemPattern(pattern: string): (name: string) => boolean {
  const trimmed = pattern.trim().replace(/^\/+/, '').replace(/\/+$/, '');
  let source = '';
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i];
    if (c === '*' && trimmed[i + 1] === '*') {
      // `**/` also matches no directory at all.
      if (trimmed[i + 2] === '/') {
        source += '(?:.*/)?';
        i += 2;
      } else {
        source += '.*';
        i += 1;
      }
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  if (trimmed.includes('/')) {
    const whole = new RegExp(`^${source}(?:/.*)?$`);
    return (name) => whole.test(name);
  }
  const segment = new RegExp(`^${source}$`);
  return (name) => name.split('/').some((part) => segment.test(part));
}

/** The patterns of a stored value: one string or a list of strings. */
export function patternList(value: string | string[] | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((p) => p.trim()).filter(Boolean);
}

/** Why a document named `name` is not ingested under these patterns, or undefined when it is. */
export function itemRefusal(name: string, include: string[], exclude: string[]): string | undefined {
  const normalized = name.replace(/\\/g, '/').replace(/^\/+/, '');
  const excluded = exclude.find((p) => itemPattern(p)(normalized));
  if (excluded !== undefined) return `"${normalized}" matches the organisation's excludeItems pattern "${excluded}"`;
  if (include.length && !include.some((p) => itemPattern(p)(normalized))) return `"${normalized}" matches none of the organisation's includeItems patterns`;
  return undefined;
}
