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

/**
 * Session surface, through the SDK: the call answered `status`, and its error body is the reference's
 * `name` (`BadRequestError`: the validation body). Returns the error body.
 */
export async function expectSessionAnswer(call: Promise<{ error?: unknown; response: Response }>, status: number, name?: string): Promise<any> {
  const { error, response } = await call;
  expect(response.status).toBe(status);
  if (name) expectSessionError(error, name);
  return error;
}

const text = (expected: string | RegExp) => (typeof expected === 'string' ? expected : expect.stringMatching(expected));

/**
 * Memory surface (supermemory): `{error}` or `{error, details}` and nothing else. `details` is
 * validation issues as `path: message`, or a 500's `ref <request id>`; `null` when there must be none.
 */
export function expectMemoryError(body: unknown, expected: { error?: string | RegExp; details?: string | RegExp | null } = {}): { error: string; details?: string } {
  const b = body as { error: string; details?: string };
  expect(b).toEqual({
    error: expected.error === undefined ? expect.any(String) : text(expected.error),
    ...('details' in b && expected.details !== null ? { details: expected.details === undefined ? expect.any(String) : text(expected.details) } : {}),
  });
  if (expected.details) expect(b.details).toEqual(text(expected.details));
  return b;
}

/** Memory surface, through the supermemory SDK: the call failed with `status` and a memory error body (see expectMemoryError). */
export async function expectMemoryAnswer(call: Promise<unknown>, status: number, details?: string | RegExp | null): Promise<{ error: string; details?: string }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status?: number; error?: unknown };
    expect(e.status).toBe(status);
    return expectMemoryError(e.error, { details });
  }
  throw new Error(`expected HTTP ${status}`);
}

/** Routing manager (middleware-manager v3): exactly `{code, message}`, `code` being the HTTP status. */
export function expectRoutingError(body: unknown, status: number, message?: string | RegExp): { code: number; message: string } {
  expect(body).toEqual({ code: status, message: message === undefined ? expect.any(String) : text(message) });
  return body as { code: number; message: string };
}
