/**
 * One domain error hierarchy for the three surfaces. Each surface's filter renders these
 * in its own dialect (see `http-error.filter.ts`); services only ever throw these.
 */
export interface ValidationIssue {
  code: string;
  path: (string | number)[];
  message: string;
  [key: string]: unknown;
}

export abstract class DomainError extends Error {
  abstract readonly status: number;
  /** Name used by the session surface's `{name, data}` body. */
  abstract readonly errorName: string;
  constructor(
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The base of an error class answered with `status`, named `errorName` in the session surface's body. */
export function domainError(status: number, errorName: string) {
  return class extends DomainError {
    readonly status = status;
    readonly errorName = errorName;
  };
}

export class NotFoundError extends domainError(404, 'NotFoundError') {}

/**
 * The issues an error names at most: in a ValidationError's message, in a rendered error body
 * (http-error.filter.ts), and where a list stops checking its items (routing-validation.ts).
 */
export const SHOWN_ISSUES = 50;

/** A request that fails validation: `issues` name the offending fields. */
export class ValidationError extends domainError(400, 'BadRequestError') {
  constructor(
    readonly issues: ValidationIssue[],
    readonly input: unknown,
  ) {
    // Not a message of every issue: a body of a million wrong items would make one of tens of megabytes.
    const named = issues.slice(0, SHOWN_ISSUES).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    const more = issues.length - named.length;
    super(named.join('; ') + (more ? `; ${more} more` : ''));
  }
}

export class BadRequestError extends domainError(400, 'BadRequestError') {}

/** A session already running a prompt or shell command. */
export class BusyError extends domainError(400, 'BusyError') {}

export class ConflictError extends domainError(409, 'ConflictError') {}

export class UnauthorizedError extends domainError(401, 'UnauthorizedError') {}

export class PayloadTooLargeError extends domainError(413, 'PayloadTooLargeError') {}

export class UnsupportedMediaTypeError extends domainError(415, 'UnsupportedMediaTypeError') {}

/** Seconds after which a request answered 503 may be sent again (`Retry-After`). */
export const RETRY_AFTER_SECONDS = 1;

/** A condition that passes (the database connection lost, a server restarting): the request can be sent again. */
export class ServiceUnavailableError extends domainError(503, 'ServiceUnavailableError') {}

/** Too many attempts from one client: `data.retryAfter` seconds until the next may be made (`Retry-After`). */
export class TooManyRequestsError extends domainError(429, 'TooManyRequestsError') {
  constructor(message: string, retryAfter: number) {
    super(message, { retryAfter });
  }
}

/** Build a single validation issue, for hand-written checks. */
export function issue(path: (string | number)[], message: string, code = 'custom'): ValidationIssue {
  return { code, path, message };
}
