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

export class NotFoundError extends DomainError {
  readonly status = 404;
  readonly errorName = 'NotFoundError';
}

/**
 * The issues an error names at most: in a ValidationError's message, in a rendered error body
 * (http-error.filter.ts), and where a list stops checking its items (routing-validation.ts).
 */
export const SHOWN_ISSUES = 50;

/** A request that fails validation: `issues` name the offending fields. */
export class ValidationError extends DomainError {
  readonly status = 400;
  readonly errorName = 'BadRequestError';
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

export class BadRequestError extends DomainError {
  readonly status = 400;
  readonly errorName = 'BadRequestError';
}

/** A session already running a prompt or shell command. */
export class BusyError extends DomainError {
  readonly status = 400;
  readonly errorName = 'BusyError';
}

export class ConflictError extends DomainError {
  readonly status = 409;
  readonly errorName = 'ConflictError';
}

export class UnauthorizedError extends DomainError {
  readonly status = 401;
  readonly errorName = 'UnauthorizedError';
}

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
  readonly errorName = 'PayloadTooLargeError';
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly status = 415;
  readonly errorName = 'UnsupportedMediaTypeError';
}

/** Seconds after which a request answered 503 may be sent again (`Retry-After`). */
export const RETRY_AFTER_SECONDS = 1;

/** A condition that passes (the database connection lost, a server restarting): the request can be sent again. */
export class ServiceUnavailableError extends DomainError {
  readonly status = 503;
  readonly errorName = 'ServiceUnavailableError';
}

/** Too many attempts from one client: `data.retryAfter` seconds until the next may be made (`Retry-After`). */
export class TooManyRequestsError extends DomainError {
  readonly status = 429;
  readonly errorName = 'TooManyRequestsError';
  constructor(message: string, retryAfter: number) {
    super(message, { retryAfter });
  }
}

/** Build a single validation issue, for hand-written checks. */
export function issue(path: (string | number)[], message: string, code = 'custom'): ValidationIssue {
  return { code, path, message };
}
