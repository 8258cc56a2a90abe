import { issue, ValidationError, ValidationIssue } from '../common/errors';
import { NUL_MESSAGE, nulIssues } from '../common/text-input.guard';
import type { Metadata } from './documents/memory-document.entity';

/** Limits of the reference (supermemory-api.md §0–§4). */
export const LIMITS = {
  tagLength: 100,
  customIdLength: 255,
  entityContextLength: 1500,
  textContentBytes: 1024 * 1024,
  batchItems: 600,
  fileBytes: 50 * 1024 * 1024,
  memoryContentLength: 10_000,
  listLimit: 1100,
  /** Highest `page` of a list: past it, `(page - 1) × limit` is no longer an exact integer for SQL's OFFSET. */
  page: Math.floor(Number.MAX_SAFE_INTEGER / 1100),
} as const;

// The superset of every tag rule the reference's sources state (letters, digits, _ : . -).
const TAG_PATTERN = /^[A-Za-z0-9_:.-]+$/;

/** Collects issues for one request and throws them together, each naming its field. */
export class Checker {
  readonly issues: ValidationIssue[] = [];

  fail(path: (string | number)[], message: string): void {
    this.issues.push(issue(path, message));
  }

  throwIfAny(input: unknown): void {
    if (this.issues.length) throw new ValidationError(this.issues, input);
  }

  string(value: unknown, path: (string | number)[], options: { required?: boolean; max?: number; min?: number } = {}): string | undefined {
    if (value === undefined || value === null) {
      if (options.required) this.fail(path, 'is required');
      return undefined;
    }
    if (typeof value !== 'string') {
      this.fail(path, 'must be a string');
      return undefined;
    }
    // Also checked by TextInputGuard; here for what reaches the service unguarded: batch items, multipart fields.
    if (value.includes('\0')) this.fail(path, NUL_MESSAGE);
    if (options.min !== undefined && value.length < options.min) this.fail(path, `must be at least ${options.min} character(s) long`);
    if (options.max !== undefined && value.length > options.max) this.fail(path, `must be at most ${options.max} characters long`);
    return value;
  }

  tag(value: unknown, path: (string | number)[]): string | undefined {
    const tag = this.string(value, path, { max: LIMITS.tagLength, min: 1 });
    if (tag !== undefined && tag.length > 0 && !TAG_PATTERN.test(tag)) {
      this.fail(path, 'must contain only letters, digits, underscores, hyphens, colons and dots');
    }
    return tag;
  }

  /** `containerTag` and the deprecated `containerTags`, merged (single tag first). */
  tags(body: Record<string, unknown>, base: (string | number)[] = []): string[] | undefined {
    const single = this.tag(body.containerTag, [...base, 'containerTag']);
    let many: string[] | undefined;
    if (body.containerTags !== undefined && body.containerTags !== null) {
      if (!Array.isArray(body.containerTags)) this.fail([...base, 'containerTags'], 'must be an array of strings');
      else many = body.containerTags.map((t, i) => this.tag(t, [...base, 'containerTags', i]) ?? '');
    }
    if (single === undefined && many === undefined) return undefined;
    return [...new Set([...(single ? [single] : []), ...(many ?? [])])].filter(Boolean);
  }

  customId(value: unknown, path: (string | number)[]): string | undefined {
    return this.string(value, path, { min: 1, max: LIMITS.customIdLength });
  }

  metadata(value: unknown, path: (string | number)[], options: { arrays?: boolean } = { arrays: true }): Metadata | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) {
      this.fail(path, 'must be an object');
      return undefined;
    }
    const out: Metadata = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (nulIssues(key).length || nulIssues(v).length) {
        this.fail([...path, key], NUL_MESSAGE);
        continue;
      }
      if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) out[key] = v;
      else if (options.arrays && Array.isArray(v) && v.every((x) => typeof x === 'string')) out[key] = v;
      else
        this.fail(
          [...path, key],
          options.arrays ? 'must be a string, number, boolean or array of strings' : 'must be a string, number or boolean',
        );
    }
    return out;
  }

  oneOf<T extends string>(value: unknown, path: (string | number)[], allowed: readonly T[]): T | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || !allowed.includes(value as T)) {
      this.fail(path, `must be one of ${allowed.join(', ')}`);
      return undefined;
    }
    return value as T;
  }

  boolean(value: unknown, path: (string | number)[]): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    this.fail(path, 'must be a boolean');
    return undefined;
  }

  number(value: unknown, path: (string | number)[], options: { min?: number; max?: number; integer?: boolean } = {}): number | undefined {
    if (value === undefined || value === null) return undefined;
    const n = typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n) || (options.integer && !Number.isSafeInteger(n))) {
      this.fail(path, options.integer ? 'must be an integer' : 'must be a number');
      return undefined;
    }
    if (options.min !== undefined && n < options.min) this.fail(path, `must be at least ${options.min}`);
    if (options.max !== undefined && n > options.max) this.fail(path, `must be at most ${options.max}`);
    return n;
  }
}

/** The body must be a JSON object. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationError([issue([], 'the request body must be a JSON object')], body ?? null);
  }
  return body as Record<string, unknown>;
}
