import { ArgumentMetadata, Body, Query, Type } from '@nestjs/common';
import { ApiPropertyOptions } from '@nestjs/swagger';
import { commaList } from '../common/comma-list';
import { issue, SHOWN_ISSUES, ValidationIssue } from '../common/errors';
import {
  absent,
  checkRequest,
  Field,
  isJsonObject,
  Path,
  RequestValidationPipe,
  Rule,
} from '../common/validation/request-fields';

/*
 * The routing API's rules, in the words v3's clients know, on the shared request machinery
 * (common/validation/request-fields.ts). Each field has one rule, so a 400 names each bad field once,
 * in declaration order.
 */

const fail = (at: Path, message: string, code = 'invalid_type'): ValidationIssue[] => [
  issue(at, message, code),
];

/** A further check of a well-typed value: the message when it is wrong. */
type Refine<T> = (value: T, body: object) => string | undefined;

const refined = <T>(at: Path, value: T, body: object, refine?: Refine<T>): ValidationIssue[] => {
  const problem = refine?.(value, body);
  return problem ? fail(at, problem, 'invalid_value') : [];
};

/** A non-empty string (gin `binding:"required"`). */
export const RequiredText = (api: ApiPropertyOptions = {}, refine?: Refine<string>) =>
  Field(api, 'requiredText', (value, body, at) =>
    typeof value === 'string' && value.trim() !== ''
      ? refined(at, value, body, refine)
      : fail(at, 'is required and must be a non-empty string'),
  );

/** A string, or nothing (null counts as nothing). */
export const OptionalText = (api: ApiPropertyOptions = {}, refine?: Refine<string>) =>
  Field(
    api,
    'optionalText',
    (value, body, at) =>
      absent(value)
        ? []
        : typeof value === 'string'
          ? refined(at, value, body, refine)
          : fail(at, 'must be a string'),
    true,
  );

/** Comma-separated names, each matching `pattern` (empty entries dropped). */
export const CommaList = (api: ApiPropertyOptions, pattern: RegExp, noun: string, optional = false) =>
  Field(
    api,
    'commaList',
    (value, _body, at) => {
      if (absent(value)) return [];
      if (typeof value !== 'string') return fail(at, 'must be a string');
      const bad = commaList(value).find((entry) => !pattern.test(entry));
      return bad === undefined ? [] : fail(at, `"${bad}" is not a valid ${noun}`, 'invalid_value');
    },
    optional,
  );

const isInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value);

/** An integer up to `max`, or nothing. */
export const OptionalInteger = (api: ApiPropertyOptions, max: number) =>
  Field(
    api,
    'optionalInteger',
    (value, _body, at) =>
      absent(value)
        ? []
        : !isInteger(value)
          ? fail(at, 'must be an integer')
          : value > max
            ? fail(at, `must be at most ${max}`, 'invalid_value')
            : [],
    true,
  );

/** A required integer from `min` to `max`. */
export const IntegerBetween = (api: ApiPropertyOptions, min: number, max: number) =>
  Field(api, 'integerBetween', (value, _body, at) =>
    absent(value)
      ? fail(at, 'is required', 'required')
      : !isInteger(value)
        ? fail(at, 'must be an integer')
        : value < min || value > max
          ? fail(at, `must be between ${min} and ${max}`, 'invalid_value')
          : [],
  );

export const RequiredBoolean = (api: ApiPropertyOptions = {}) =>
  Field(api, 'requiredBoolean', (value, _body, at) =>
    typeof value === 'boolean' ? [] : fail(at, 'is required and must be a boolean'),
  );

/** A JSON object (`{}` allowed; null, arrays and scalars are not), whose content `entries` may check further. */
export const RequiredObject = (api: ApiPropertyOptions, entries?: Rule) =>
  Field(api, 'requiredObject', (value, body, at) =>
    isJsonObject(value)
      ? (entries?.(value, body, at) ?? [])
      : fail(at, 'is required and must be a JSON object'),
  );

/** An array of request objects, each checked as `item` until SHOWN_ISSUES issues are found (a million bad items make one short answer). */
export const RequiredList = (api: ApiPropertyOptions, item: Type<object>) =>
  Field(api, 'requiredList', (value, _body, at) => {
    if (!Array.isArray(value)) return fail(at, 'is required and must be an array');
    const issues: ValidationIssue[] = [];
    for (let index = 0; index < value.length && issues.length < SHOWN_ISSUES; index++) {
      issues.push(...checkRequest(item, value[index], [...at, index]).issues);
    }
    return issues.slice(0, SHOWN_ISSUES);
  });

/** A query value (a string, or an array when repeated) that must be one of `values`, or nothing. */
export const OneOf = (api: ApiPropertyOptions, values: readonly string[]) =>
  Field(
    { ...api, enum: values },
    'oneOf',
    (value, _body, at) =>
      value === undefined || values.includes(value as string)
        ? []
        : fail(at, `must be one of ${values.join(', ')}`, 'invalid_value'),
    true,
  );

/** A query value that must be a whole number from 1 to `max`, or nothing. */
export const WholeNumber = (api: ApiPropertyOptions, max: number) =>
  Field(
    api,
    'wholeNumber',
    (value, _body, at) => {
      if (value === undefined) return [];
      const n = Number(value);
      return !/^\d+$/.test(value as string) || n < 1 || n > max
        ? fail(at, `must be a whole number from 1 to ${max}`, 'invalid_value')
        : [];
    },
    true,
  );

interface RoutingPipeOptions {
  /** No body, or `{}`, reaches the handler as `undefined`. */
  emptyAllowed?: boolean;
  /** The DTO class to check against instead of the parameter's (a controller made for several kinds). */
  as?: Type<object>;
}

/**
 * Checks a routing request body or query against its DTO class and hands the handler the typed
 * instance; a bad request becomes the routing surface's 400 (`{code, message}` naming each field).
 */
export class RoutingValidationPipe extends RequestValidationPipe {
  constructor(private readonly routing: RoutingPipeOptions = {}) {
    super(routing);
  }

  override transform(value: unknown, metadata: ArgumentMetadata): unknown {
    return super.transform(value, { ...metadata, metatype: this.routing.as ?? metadata.metatype });
  }
}

/** The request body, checked against the parameter's DTO class. */
export const RoutingBody = (options?: RoutingPipeOptions): ParameterDecorator =>
  Body(new RoutingValidationPipe(options));

/** The query string, checked against the parameter's DTO class. */
export const RoutingQuery = (): ParameterDecorator => Query(new RoutingValidationPipe());
