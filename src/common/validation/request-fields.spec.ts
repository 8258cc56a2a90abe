import 'reflect-metadata';
import { issue, ValidationError } from '../errors';
import { checkRequest, CrossFieldRule, Field, ParsedField, RequestValidationPipe, Rule, UnknownFieldsRefused } from './request-fields';

const text: Rule = (value, _body, at) => (value === undefined || typeof value === 'string' ? [] : [issue(at, 'must be a string')]);
const Text = () => Field({}, 'text', text, true);
const Count = () =>
  ParsedField(
    {},
    'count',
    (value, _body, at) =>
      value === undefined || (typeof value === 'string' && /^\d+$/.test(value)) ? { issues: [], value: Number(value) } : { issues: [issue(at, 'must be a count')], value },
    true,
  );

class Base {
  @Text() first?: string;
}

@CrossFieldRule((body: Child) => (body.first || body.second ? [] : [issue(['first'], 'first or second is required')]))
class Child extends Base {
  @Text() second?: string;
  @Count() count?: number;
}

@UnknownFieldsRefused((key) => `${key} is not a field`)
class Strict {
  @Text() a?: string;
  @Text() b?: string;
}

@UnknownFieldsRefused(() => 'is not a setting', 'as sent')
class InSentOrder {
  @Text() a?: string;
  @Text() b?: string;
}

const messages = (dto: new () => object, value: unknown) => checkRequest(dto, value).issues.map((i) => `${i.path.join('.')}: ${i.message}`);

describe('request fields', () => {
  it("checks a base class's fields before its own, then the rules across fields", () => {
    expect(messages(Child, { count: 'x', second: 1, first: 2 })).toEqual(['first: must be a string', 'second: must be a string', 'count: must be a count']);
    expect(messages(Child, {})).toEqual(['first: first or second is required']);
  });

  it('hands over converted values once every rule passed, and only the declared fields', () => {
    const { body, issues } = checkRequest(Child, { first: 'a', count: '12', extra: true });
    expect(issues).toEqual([]);
    expect(body).toBeInstanceOf(Child);
    expect({ ...body }).toEqual({ first: 'a', count: 12 });
  });

  it('refuses undeclared fields first, or where they were sent', () => {
    expect(messages(Strict, { b: 1, z: 1, a: 1 })).toEqual(['z: z is not a field', 'a: must be a string', 'b: must be a string']);
    expect(messages(InSentOrder, { b: 1, z: 1, a: 1 })).toEqual(['b: must be a string', 'z: is not a setting', 'a: must be a string']);
    expect(Object.keys(checkRequest(InSentOrder, { b: 'x', a: 'y' }).body)).toEqual(['b', 'a']);
  });

  it('the pipe refuses a body that is not an object at once when asked, or checks no body as {}', () => {
    const strict = new RequestValidationPipe({ notAnObject: 'must be an object' });
    expect(() => strict.transform([1], { type: 'body', metatype: Child })).toThrow(ValidationError);
    try {
      strict.transform('x', { type: 'body', metatype: Child });
    } catch (error) {
      expect((error as ValidationError).issues).toEqual([issue([], 'must be an object')]);
    }
    const optional = new RequestValidationPipe({ notAnObject: 'must be an object', absentAsEmpty: true });
    expect(() => optional.transform(undefined, { type: 'body', metatype: Strict })).not.toThrow();
    expect(optional.transform(undefined, { type: 'body', metatype: Strict })).toBeInstanceOf(Strict);
  });

  it("names only the first 50 issues in the error's message, and counts the others", () => {
    const issues = Array.from({ length: 1_000_000 }, (_, i) => issue(['tags', i], 'must be a string'));
    const error = new ValidationError(issues, {});
    expect(error.issues).toHaveLength(1_000_000);
    expect(error.message).toMatch(/^tags\.0: must be a string; tags\.1: must be a string; .*; tags\.49: must be a string; 999950 more$/);
  });
});
