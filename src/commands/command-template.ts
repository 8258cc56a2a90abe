const ARGUMENT = /"[^"]*"|'[^']*'|[^\s"']+/g;
const PLACEHOLDER = /\$(\d+)/g;

/** Shell-like split of a command's argument string: quoted groups stay whole, quotes are dropped. */
export function splitArguments(raw: string): string[] {
  return (raw.match(ARGUMENT) ?? []).map((arg) => arg.replace(/^["']|["']$/g, ''));
}

/**
 * The prompt text of a command run with `args` (reference `session.command`): `$1…$n` take the
 * split arguments (missing ones become empty; the highest placeholder swallows the rest),
 * `$ARGUMENTS` takes the raw string. A template with neither gets the arguments appended, so
 * they are never silently lost. Shell (`!\`cmd\``) and `@file` expansion belong to the prompt.
 */
export function renderCommandTemplate(template: string, args: string): string {
  const values = splitArguments(args);
  const highest = Math.max(0, ...[...template.matchAll(PLACEHOLDER)].map((m) => Number(m[1])));
  const withPositional = template.replace(PLACEHOLDER, (_match, digits: string) => {
    const position = Number(digits);
    if (position < 1 || position > values.length) return '';
    return position === highest ? values.slice(position - 1).join(' ') : values[position - 1];
  });
  const rendered = withPositional.replaceAll('$ARGUMENTS', args);
  if (highest === 0 && !template.includes('$ARGUMENTS') && args.trim()) return `${rendered.trimEnd()}\n\n${args}`;
  return rendered;
}
