import { isJsonObject } from '../../common/validation/request-fields';

/**
 * YAML for Traefik's file provider. The documents are plain JSON data, so a direct emitter is
 * enough, and it is about ten times faster than a general YAML library on 5,000 routers.
 * Every string is double-quoted with JSON escapes (valid YAML), so no value can change type.
 */
type Value = unknown;

const PLAIN_KEY = /^[A-Za-z0-9_][A-Za-z0-9_.\/-]*$/;
const AMBIGUOUS_KEY = /^(true|false|yes|no|on|off|null|y|n|~|[-+]?[0-9][0-9_.eE+-]*)$/i;

function quote(text: string): string {
  return JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function key(name: string): string {
  return PLAIN_KEY.test(name) && !AMBIGUOUS_KEY.test(name) ? name : quote(name);
}

/** `{}`/`[]` and scalars fit on the key's line. */
function inline(value: Value): string | undefined {
  if (Array.isArray(value)) return value.length ? undefined : '[]';
  if (isJsonObject(value)) return Object.keys(value).length ? undefined : '{}';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return 'null';
}

function emit(value: Value, indent: number, out: string[]): void {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    for (const item of value) {
      const scalar = inline(item);
      if (scalar !== undefined) out.push(`${pad}- ${scalar}`);
      else if (isJsonObject(item)) {
        const start = out.length;
        emit(item, indent + 2, out);
        out[start] = `${pad}- ${out[start].slice(indent + 2)}`;
      } else {
        out.push(`${pad}-`);
        emit(item, indent + 2, out);
      }
    }
    return;
  }
  for (const [name, child] of Object.entries(value as Record<string, Value>)) {
    const scalar = inline(child);
    if (scalar !== undefined) out.push(`${pad}${key(name)}: ${scalar}`);
    else {
      out.push(`${pad}${key(name)}:`);
      emit(child, indent + 2, out);
    }
  }
}

export function toYaml(document: Record<string, Value>): string {
  if (Object.keys(document).length === 0) return '{}\n';
  const out: string[] = [];
  emit(document, 0, out);
  return `${out.join('\n')}\n`;
}
