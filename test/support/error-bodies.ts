import { expectReferenceSchema } from './reference-schema';

/**
 * The error bodies of each surface (design.md §1), asserted one way everywhere. Each takes what the
 * client has parsed (the SDK's `error`, or the JSON of a fetch).
 */

/** Session surface: a validation error `{data, error:[issues], success:false}` (reference BadRequestError); `field`, when given, is its first issue's path. */
export function expectSessionBadRequest(body: unknown, field?: string | (string | number)[]): { data: unknown; error: { path: (string | number)[]; message: string }[] } {
  const b = body as { data: unknown; error: { path: (string | number)[]; message: string }[]; success: boolean };
  expect(b.success).toBe(false);
  expectReferenceSchema({ ...b, errors: b.error }, 'BadRequestError');
  if (field !== undefined) expect(b.error[0].path).toEqual(Array.isArray(field) ? field : [field]);
  return b;
}

/** Session surface: a named error `{name, data:{message}}` (checked against the reference schema of that name when it has one). */
export function expectSessionError(body: unknown, name: string): { name: string; data: { message: string } } {
  if (name === 'BadRequestError') return expectSessionBadRequest(body) as never;
  const b = body as { name: string; data: { message: string } };
  expect(b.name).toBe(name);
  if (name === 'NotFoundError') expectReferenceSchema(b, 'NotFoundError');
  return b;
}
