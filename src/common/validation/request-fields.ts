import { applyDecorators, ArgumentMetadata, Injectable, PipeTransform, Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { getMetadataStorage, ValidateBy } from 'class-validator';
import { issue, ValidationError, ValidationIssue } from '../errors';

/*
 * Request shapes are declared once, as DTO classes whose decorators give both the check and the /doc
 * schema (as immich's server/src/validation.ts composes them). Each surface writes its rules in its
 * own words (routing-validation.ts, memory/validation.ts) on top of `Field`; one pipe runs them in
 * declaration order and hands the handler a typed instance, so a 400 lists the fields in that order.
 */

export type Path = (string | number)[];

/** What is wrong with a field's value (nothing when it is valid); `at` is the field's path in the request. */
export type Rule = (value: unknown, body: object, at: Path) => ValidationIssue[];

/**
 * A rule that also reads the value in the same pass: what is wrong with it, and (when nothing is) what
 * the handler receives instead of the value as sent (a number sent as text as a number, …).
 */
type Parse = (value: unknown, body: object, at: Path) => { issues: ValidationIssue[]; value: unknown };

export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export const absent = (value: unknown): value is null | undefined => value === undefined || value === null;

interface FieldRule {
  parse: Parse;
  /** The handler receives the parsed value (otherwise the value as sent). */
  converts: boolean;
}

function registered(api: ApiPropertyOptions, name: string, context: FieldRule, optional: boolean): PropertyDecorator {
  return applyDecorators(
    optional && api.required === undefined ? ApiPropertyOptional(api) : ApiProperty(api),
    ValidateBy(
      {
        name,
        validator: { validate: (value: unknown, args) => context.parse(value, args!.object, []).issues.length === 0 },
      },
      // The pipe reads the rule from the context (rulesOf), for its messages and paths.
      { message: name, context },
    ),
  );
}

/** A field's schema and its single rule (`optional`: not required in the schema unless `api` says so). */
export function Field(api: ApiPropertyOptions, name: string, rule: Rule, optional = false): PropertyDecorator {
  return registered(api, name, { parse: (value, body, at) => ({ issues: rule(value, body, at), value }), converts: false }, optional);
}

/** A field whose rule also reads the value the handler receives, in one pass (see Parse). */
export function ParsedField(api: ApiPropertyOptions, name: string, parse: Parse, optional = false): PropertyDecorator {
  return registered(api, name, { parse, converts: true }, optional);
}

/** A rule across fields (one or the other is required, …): runs after every field, `at` is the body's path. */
type ClassRule = (body: object, at: Path) => ValidationIssue[];

const classRules = new WeakMap<object, ClassRule[]>();

/** Adds a rule across the fields of a request class, checked after them in the order given. */
export function CrossFieldRule(rule: ClassRule): ClassDecorator {
  return (target) => {
    classRules.set(target, [...(classRules.get(target) ?? []), rule]);
  };
}

interface UnknownFields {
  message: (key: string) => string;
  order: 'first' | 'as sent';
}

const unknownFieldRules = new WeakMap<object, UnknownFields>();

/**
 * A field the class does not declare is refused, with `message(key)`: before the declared fields
 * (`first`), or (`as sent`) where it was sent, every field then checked in the order the client sent
 * them (a PATCH naming the settings it changes).
 */
export function UnknownFieldsRefused(message: (key: string) => string, order: UnknownFields['order'] = 'first'): ClassDecorator {
  return (target) => {
    unknownFieldRules.set(target, { message, order });
  };
}

type FieldRules = [string, FieldRule][];

const rulesByClass = new WeakMap<Type<object>, FieldRules>();

/**
 * The class's fields and their rules in declaration order, read once from class-validator's metadata:
 * the fields of a base class first (as /doc lists them), where class-validator puts a class's own first.
 */
function rulesOf(dto: Type<object>): FieldRules {
  let rules = rulesByClass.get(dto);
  if (!rules) {
    const depth = (target: unknown) => {
      let n = 0;
      for (let c: unknown = dto; c && c !== target; c = Object.getPrototypeOf(c)) n++;
      return n;
    };
    rules = getMetadataStorage()
      .getTargetValidationMetadatas(dto, '', true, false)
      .map((m, index) => ({ m, index, depth: depth(m.target) }))
      // Deepest (the first base) first; in one class, the order its decorators were registered.
      .sort((a, b) => b.depth - a.depth || a.index - b.index)
      .flatMap(({ m }) => {
        const context = m.context as Partial<FieldRule> | undefined;
        return context?.parse ? [[m.propertyName, context as FieldRule] as [string, FieldRule]] : [];
      });
    rulesByClass.set(dto, rules);
  }
  return rules;
}

const classRulesByClass = new WeakMap<Type<object>, ClassRule[]>();

/** The class-level rules of `dto` and of the classes it extends, the base's first (read once per class). */
function classRulesOf(dto: Type<object>): ClassRule[] {
  let rules = classRulesByClass.get(dto);
  if (!rules) {
    const chain: ClassRule[][] = [];
    for (let c: unknown = dto; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(classRules.get(c) ?? []);
    rules = chain.flat();
    classRulesByClass.set(dto, rules);
  }
  return rules;
}

/**
 * `value` as an instance of `dto` holding only the declared fields, and every issue found. A value that
 * is not an object is reported, and its fields then checked as those of an empty body (as routing v3
 * answers). The registered rules run here rather than through `validateSync`, which costs about 100 µs
 * per object (a list of 10,000 items would block the server for a second) and reports no paths below a
 * field.
 */
export function checkRequest<T extends object>(
  dto: Type<T>,
  value: unknown,
  prefix: Path = [],
): { body: T; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  if (!isJsonObject(value) && value !== undefined)
    issues.push(issue(prefix, 'must be a JSON object', 'invalid_type'));
  const fields = isJsonObject(value) ? value : {};
  // Only declared names are set (never `__proto__` or another inherited name), as plain data properties.
  const body = Object.create(dto.prototype) as Record<string, unknown>;
  const rules = rulesOf(dto);
  const unknown = unknownFieldRules.get(dto);
  const order = unknown ? orderWithUnknown(rules, fields, unknown) : rules;
  for (const [property, rule] of order) if (rule && Object.hasOwn(fields, property)) body[property] = fields[property];
  let converted: [string, unknown][] | undefined;
  for (const [property, rule] of order) {
    const at = prefix.length ? [...prefix, property] : [property];
    if (!rule) {
      issues.push(issue(at, unknown!.message(property)));
      continue;
    }
    const parsed = rule.parse(body[property], body, at);
    for (const one of parsed.issues) issues.push(one);
    if (!parsed.issues.length && rule.converts && Object.hasOwn(body, property)) (converted ??= []).push([property, parsed.value]);
  }
  for (const rule of classRulesOf(dto)) for (const one of rule(body, prefix)) issues.push(one);
  // Handed over once every rule has seen the values as sent.
  if (converted) for (const [property, parsedValue] of converted) body[property] = parsedValue;
  return { body: body as T, issues };
}

/** The fields in the order UnknownFieldsRefused asks: the undeclared ones first, or everything in the order sent. */
function orderWithUnknown(rules: FieldRules, fields: Record<string, unknown>, unknown: UnknownFields): [string, FieldRule | undefined][] {
  const declared = (key: string) => rules.find(([property]) => property === key)?.[1];
  if (unknown.order === 'as sent') return Object.keys(fields).map((key) => [key, declared(key)]);
  return [...Object.keys(fields).flatMap((key): [string, undefined][] => (declared(key) ? [] : [[key, undefined]])), ...rules];
}

const PLAIN_TYPES: unknown[] = [String, Number, Boolean, Object, Array];

interface RequestPipeOptions {
  /** No body, or `{}`, reaches the handler as `undefined`. */
  emptyAllowed?: boolean;
  /** No body at all (undefined or null) is checked as `{}`. */
  absentAsEmpty?: boolean;
  /**
   * A body that is not a JSON object is refused at once with this message (the memory surface), instead
   * of being reported before the fields of an empty body (the routing surface).
   */
  notAnObject?: string;
  /** Fields never echoed in the error body (a password): the body's `data` shows the rest. */
  unechoed?: string[];
}

/**
 * Checks a request body or query against the parameter's DTO class and hands the handler the typed
 * instance; a bad request throws one ValidationError naming each field, which each surface's filter
 * renders in its own dialect.
 */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  constructor(private readonly options: RequestPipeOptions = {}) {}

  transform(value: unknown, { metatype }: ArgumentMetadata): unknown {
    if (!metatype || PLAIN_TYPES.includes(metatype)) return value;
    if (this.options.emptyAllowed && isEmpty(value)) return undefined;
    const sent = this.options.absentAsEmpty && absent(value) ? {} : value;
    if (this.options.notAnObject !== undefined && !isJsonObject(sent))
      throw new ValidationError([issue([], this.options.notAnObject)], value ?? null);
    const { body, issues } = checkRequest(metatype as Type<object>, sent);
    if (issues.length) throw new ValidationError(issues, this.echoed(value));
    return body;
  }

  private echoed(value: unknown): unknown {
    const { unechoed } = this.options;
    if (!unechoed || !isJsonObject(value)) return value;
    return Object.fromEntries(Object.entries(value).filter(([key]) => !unechoed.includes(key)));
  }
}

function isEmpty(value: unknown): boolean {
  return absent(value) || (typeof value === 'object' && Object.keys(value).length === 0);
}
