import type { Checker } from '../validation';

/** The reference's QueryFilter: `{AND:[…]}` / `{OR:[…]}` of conditions, nested up to 5 levels. */
export interface FilterCondition {
  key: string;
  value: string;
  filterType?: 'metadata' | 'numeric' | 'array_contains' | 'string_contains';
  numericOperator?: '>' | '<' | '>=' | '<=' | '=';
  negate?: boolean | 'true' | 'false';
  ignoreCase?: boolean | 'true' | 'false';
}
export type FilterExpression = FilterCondition | { AND: FilterExpression[] } | { OR: FilterExpression[] };

const MAX_DEPTH = 5;
const FILTER_TYPES = ['metadata', 'numeric', 'array_contains', 'string_contains'];
const OPERATORS = ['>', '<', '>=', '<=', '='];

/** Validates a filter (object or JSON string); returns it parsed, or undefined when absent. */
export function parseFilter(input: unknown, check: Checker, path: (string | number)[]): FilterExpression | undefined {
  if (input === undefined || input === null) return undefined;
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      check.fail(path, 'must be a filter object or its JSON string');
      return undefined;
    }
  }
  const walk = (node: unknown, at: (string | number)[], depth: number): void => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return check.fail(at, 'must be an object');
    const n = node as Record<string, unknown>;
    const group = Array.isArray(n.AND) ? 'AND' : Array.isArray(n.OR) ? 'OR' : undefined;
    if (group) {
      if (depth >= MAX_DEPTH) return check.fail(at, `nests deeper than ${MAX_DEPTH} levels`);
      (n[group] as unknown[]).forEach((child, i) => walk(child, [...at, group, i], depth + 1));
      return;
    }
    if (depth === 0) return check.fail(at, 'must be {AND: [...]} or {OR: [...]}');
    if (typeof n.key !== 'string' || !n.key) check.fail([...at, 'key'], 'is required');
    if (typeof n.value !== 'string' && typeof n.value !== 'number' && typeof n.value !== 'boolean') check.fail([...at, 'value'], 'must be a string');
    if (n.filterType !== undefined && !FILTER_TYPES.includes(n.filterType as string)) check.fail([...at, 'filterType'], `must be one of ${FILTER_TYPES.join(', ')}`);
    if (n.numericOperator !== undefined && !OPERATORS.includes(n.numericOperator as string)) check.fail([...at, 'numericOperator'], `must be one of ${OPERATORS.join(' ')}`);
  };
  walk(value, path, 0);
  return value as FilterExpression;
}

const truthy = (v: unknown) => v === true || v === 'true';

function matchCondition(c: FilterCondition, metadata: Record<string, unknown>): boolean {
  const actual = metadata[c.key];
  const ignoreCase = truthy(c.ignoreCase);
  const norm = (v: unknown) => (ignoreCase ? String(v).toLowerCase() : String(v));
  const expected = norm(c.value);
  const matches = (): boolean => {
    switch (c.filterType ?? 'metadata') {
      case 'numeric': {
        const a = Number(actual);
        const b = Number(c.value);
        const op = c.numericOperator ?? '=';
        if (actual === undefined || Number.isNaN(a) || Number.isNaN(b)) return false;
        return op === '>' ? a > b : op === '<' ? a < b : op === '>=' ? a >= b : op === '<=' ? a <= b : a === b;
      }
      case 'array_contains':
        return Array.isArray(actual) && actual.some((v) => norm(v) === expected);
      case 'string_contains':
        return actual !== undefined && actual !== null && norm(actual).includes(expected);
      default:
        if (actual === undefined || actual === null) return false;
        return Array.isArray(actual) ? actual.some((v) => norm(v) === expected) : norm(actual) === expected;
    }
  };
  return truthy(c.negate) ? !matches() : matches();
}

export function matchesFilter(filter: FilterExpression | undefined, metadata: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  const meta = metadata ?? {};
  if ('AND' in filter) return filter.AND.every((f) => matchesFilter(f, meta));
  if ('OR' in filter) return filter.OR.some((f) => matchesFilter(f, meta));
  return matchCondition(filter, meta);
}

/** `filterByMetadata` on writes: scalars match exactly, arrays match any value, keys are ANDed. */
export function matchesExact(filter: Record<string, unknown> | undefined, metadata: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, want]) => {
    const have = metadata?.[key];
    const wanted = Array.isArray(want) ? want : [want];
    const haves = Array.isArray(have) ? have : [have];
    return wanted.some((w) => haves.some((h) => h === w));
  });
}
