import { Body, Query } from '@nestjs/common';
import { ApiPropertyOptions } from '@nestjs/swagger';
import { issue, PayloadTooLargeError, ValidationIssue } from '../common/errors';
import { NUL_MESSAGE, nulIssues } from '../common/text-input.guard';
import { ParsedField, Path, RequestValidationPipe } from '../common/validation/request-fields';
import type { Metadata } from './documents/memory-document.entity';
import { FilterExpression, parseFilter } from './search/metadata-filter';

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
const TAG_SCHEMA = { maxLength: LIMITS.tagLength, pattern: TAG_PATTERN.source };

/** Collects the issues of one value or request, each naming its field: the rules below are written with it. */
export class Checker {
  readonly issues: ValidationIssue[] = [];

  fail(path: (string | number)[], message: string): void {
    this.issues.push(issue(path, message));
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

/*
 * The memory surface's request fields, as composed decorators on the shared machinery
 * (common/validation/request-fields.ts): each gives the /doc schema and the rule, written with the
 * Checker above so the messages are the surface's own. Null counts as absent, as the reference's
 * clients send it, unless a rule says otherwise (bulk ids refuse it, a setting is reset by it); the
 * handler receives each value as the Checker reads it.
 */

/** A metadata filter: `{AND: [...]}` or `{OR: [...]}` of conditions or nested groups. */
const FILTERS_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: true,
  description: '{AND|OR: [{key, value, filterType?: metadata|numeric|array_contains|string_contains, numericOperator?, negate?, ignoreCase?} | nested group]}',
};

/** A request class another adds its fields to (`class extends Base`, the fields of both typed). */
export type Mixable = new (...args: any[]) => object;

type Read<T> = (check: Checker, value: unknown, at: Path, body: object) => T | undefined;

/** A field whose rule and typed value both come from `read`, in one pass. */
export function MemoryField<T>(api: ApiPropertyOptions, name: string, read: Read<T>, optional = true): PropertyDecorator {
  return ParsedField(
    api,
    name,
    (value, body, at) => {
      const check = new Checker();
      const parsed = read(check, value, at, body);
      return { issues: check.issues, value: parsed };
    },
    optional,
  );
}

/** A string; `required`, `min` and `max` in characters. */
export const Text = (api: ApiPropertyOptions = {}, options: { required?: boolean; min?: number; max?: number } = {}) =>
  MemoryField({ ...(options.max !== undefined ? { maxLength: options.max } : {}), ...api }, 'text', (check, value, at) => check.string(value, at, options), !options.required);

/**
 * An ISO-8601 date (a string that Date.parse reads; `min` and `max` in characters). With `min` (the
 * list filters), an empty string is also reported as no date; without, only its length is.
 * `clearable`: null is a value (it clears the date) rather than absent.
 */
export const IsoDate = (api: ApiPropertyOptions = {}, options: { min?: number; max?: number; clearable?: boolean } = {}) =>
  MemoryField<string | null>({ format: 'date-time', ...(options.max !== undefined ? { maxLength: options.max } : {}), ...(options.clearable ? { nullable: true } : {}), ...api }, 'isoDate', (check, value, at) => {
    if (value === null && options.clearable) return null;
    const text = check.string(value, at, options);
    if (text !== undefined && (text !== '' || options.min !== undefined) && Number.isNaN(Date.parse(text))) check.fail(at, 'must be an ISO-8601 date');
    return text;
  });

/** A container tag (letters, digits, `_ : . -`, at most 100 characters); `required`: a non-empty one. */
export const Tag = (api: ApiPropertyOptions = {}, options: { required?: boolean } = {}) =>
  MemoryField({ ...TAG_SCHEMA, ...api }, 'tag', (check, value, at) => {
    const tag = check.tag(value, at);
    if (options.required && !tag) check.fail(at, 'is required');
    return tag;
  }, !options.required);

/**
 * The deprecated `containerTags`, merged with `containerTag` by `containerTagsOf`. `required`: at least
 * one tag between the two (reported on containerTags).
 */
export const ContainerTags = (api: ApiPropertyOptions = {}, options: { required?: boolean } = {}) =>
  MemoryField({ type: 'array', items: { type: 'string', ...TAG_SCHEMA }, ...api }, 'containerTags', (check, value, at, body) => {
    let tags: string[] | undefined;
    if (value !== undefined && value !== null) {
      if (!Array.isArray(value)) check.fail(at, 'must be an array of strings');
      else tags = value.map((t, i) => check.tag(t, [...at, i]) ?? '');
    }
    if (options.required && !containerTagsOf({ containerTag: (body as { containerTag?: unknown }).containerTag, containerTags: tags })?.length) check.fail(at, 'is required');
    return tags;
  });

/** `containerTag` and the deprecated `containerTags` of a checked request, merged (single tag first); undefined when neither was sent. */
export function containerTagsOf(body: { containerTag?: unknown; containerTags?: unknown }): string[] | undefined {
  const single = typeof body.containerTag === 'string' ? body.containerTag : undefined;
  const many = Array.isArray(body.containerTags) ? (body.containerTags as unknown[]).map((t) => (typeof t === 'string' ? t : '')) : undefined;
  if (single === undefined && many === undefined) return undefined;
  return [...new Set([...(single ? [single] : []), ...(many ?? [])])].filter(Boolean);
}

export const CustomId = (api: ApiPropertyOptions = {}) =>
  MemoryField({ maxLength: LIMITS.customIdLength, ...api }, 'customId', (check, value, at) =>
    check.string(value, at, { min: 1, max: LIMITS.customIdLength }),
  );

/** Metadata: an object of strings, finite numbers, booleans and (with `arrays`, the default) arrays of strings. */
export const MetadataField = (api: ApiPropertyOptions = {}, options: { arrays?: boolean } = { arrays: true }) =>
  MemoryField({ type: 'object', additionalProperties: true, ...api } as ApiPropertyOptions, 'metadata', (check, value, at) => check.metadata(value, at, options));

export const OneOf = <T extends string>(values: readonly T[], api: ApiPropertyOptions = {}) =>
  MemoryField({ enum: [...values], ...api }, 'oneOf', (check, value, at) => check.oneOf(value, at, values));

/** A boolean (`"true"` and `"false"` too). */
export const Flag = (api: ApiPropertyOptions = {}) =>
  MemoryField(api, 'flag', (check, value, at) => {
    if (value === undefined || value === null) return undefined;
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    return check.fail(at, 'must be a boolean');
  });

/** A number (a numeric string too); `integer`, `min`, `max`. */
export const Num = (api: ApiPropertyOptions, options: { min?: number; max?: number; integer?: boolean } = {}) =>
  MemoryField(
    { ...(options.integer ? { type: 'integer' } : {}), ...(options.min !== undefined ? { minimum: options.min } : {}), ...(options.max !== undefined ? { maximum: options.max } : {}), ...api },
    'number',
    (check, value, at) => check.number(value, at, options),
  );

/** An array of at most 20 items, each checked by `item` (null or absent: no list; items it refuses are left out). */
export const List = <T>(api: ApiPropertyOptions, item: (check: Checker, value: unknown, at: Path) => T | undefined) =>
  MemoryField({ maxItems: 20, ...api }, 'list', (check, value, at) => {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || value.length > 20) return check.fail(at, 'must be an array of at most 20 items');
    return value.map((v, i) => item(check, v, [...at, i])).filter((v): v is T => v !== undefined);
  });

/** A metadata filter, `{AND|OR: [...]}`, or the same as a JSON string; the handler receives it parsed. */
export const Filters = (api: ApiPropertyOptions = FILTERS_SCHEMA) =>
  MemoryField<FilterExpression>(api, 'filters', (check, value, at) => parseFilter(value, check, at));

/**
 * A document's text (at most 1 MB as UTF-8). `tooLarge: 'refuse'` answers 413 for larger content, as
 * `POST /v3/documents` does whatever else is wrong; otherwise it is a 400 issue like the others.
 * `required: false`: may be absent (not null).
 */
export const DocumentContent = (api: ApiPropertyOptions, options: { tooLarge?: 'refuse'; required?: boolean } = {}) =>
  MemoryField(
    api,
    'documentContent',
    (check, value, at) => {
      if (options.required === false && value === undefined) return undefined;
      const text = check.string(value, at, { required: true, min: 1 });
      if (text !== undefined && Buffer.byteLength(text) > LIMITS.textContentBytes) {
        if (options.tooLarge === 'refuse') throw new PayloadTooLargeError('content exceeds 1 MB');
        check.fail(at, `must be at most ${LIMITS.textContentBytes} bytes`);
      }
      return text;
    },
    options.required === false,
  );

const memoryPipe = new RequestValidationPipe({ notAnObject: 'the request body must be a JSON object' });
const optionalMemoryPipe = new RequestValidationPipe({ notAnObject: 'the request body must be a JSON object', absentAsEmpty: true });

/**
 * A memory request body, checked against the parameter's DTO class: the handler receives the typed
 * instance; a bad one is the surface's 400 (`{error, details}` naming each field in declaration order).
 * `optional`: no body at all is checked as `{}`.
 */
export const MemoryBody = (options: { optional?: boolean } = {}): ParameterDecorator => Body(options.optional ? optionalMemoryPipe : memoryPipe);

/** A memory request's query string, checked against the parameter's DTO class (a repeated parameter is an array, refused where a string is declared). */
export const MemoryQuery = (): ParameterDecorator => Query(new RequestValidationPipe());
