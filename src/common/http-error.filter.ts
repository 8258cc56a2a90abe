import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isConnectionLoss } from '../database/connection-loss';
import { DomainError, RETRY_AFTER_SECONDS, ServiceUnavailableError, SHOWN_ISSUES, ValidationError, ValidationIssue } from './errors';
import { Surface, surfaceOf } from './surface';

/** Any thrown value, reduced to what a surface needs to render it. */
interface NormalizedError {
  status: number;
  name: string;
  message: string;
  issues?: ValidationIssue[];
  input?: unknown;
  data?: Record<string, unknown>;
  requestId?: string;
}

/** One surface's error dialect. */
interface ErrorRenderer {
  render(error: NormalizedError): unknown;
}

/** Session surface (the default): `{name, data}`, and the validation body `{data, error, success:false}`. */
export const sessionErrorRenderer: ErrorRenderer = {
  render(error) {
    if (error.issues) return { data: error.input ?? null, error: error.issues, success: false };
    if (error.status === 500) {
      return { name: 'UnknownError', data: { message: 'Unexpected server error', ref: error.requestId } };
    }
    return { name: error.name, data: { ...error.data, message: error.message } };
  },
};

/** Memory surface (supermemory): `{error, details?}`. */
const memoryErrorRenderer: ErrorRenderer = {
  render(error) {
    if (error.status === 500) return { error: 'Internal server error', details: `ref ${error.requestId}` };
    const details = error.issues?.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    return details ? { error: error.issues ? 'Invalid request parameters' : error.message, details } : { error: error.message };
  },
};

/** Routing manager (middleware-manager v3): `{code, message}`. */
const routingErrorRenderer: ErrorRenderer = {
  render(error) {
    const message = error.status === 500 ? `Internal server error (ref ${error.requestId})` : error.message;
    return { code: error.status, message };
  },
};

const renderers: Record<Surface, ErrorRenderer> = {
  session: sessionErrorRenderer,
  memory: memoryErrorRenderer,
  routing: routingErrorRenderer,
};

/**
 * How much of the request an error body may repeat (the session dialect echoes the input, issues
 * quote values and keys), so a 40 MB field cannot make a 40 MB error. Shapes are kept: a long string
 * stays a string with its head, a long array an array with its first entries.
 */
const ECHO = { stringChars: 1_000, messageChars: 2_000, totalChars: 16_384, entries: 100, depth: 16, issues: SHOWN_ISSUES };

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(max, 0))}… (${text.length} characters)`;
}

/** A copy of `value` within the ECHO bounds (one shared character budget for the whole value). */
function boundedEcho(value: unknown): unknown {
  let budget = ECHO.totalChars;
  const text = (s: string): string => {
    const kept = clip(s, Math.min(ECHO.stringChars, budget));
    budget -= Math.min(s.length, ECHO.stringChars) + 2;
    return kept;
  };
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return text(v);
    budget -= 8;
    if (v === null || typeof v !== 'object') return v;
    if (ArrayBuffer.isView(v)) return `(${v.byteLength} bytes)`;
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (const item of v) {
        if (depth >= ECHO.depth || out.length >= ECHO.entries || budget <= 0) break;
        out.push(walk(item, depth + 1));
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    let entries = 0;
    for (const key in v) {
      if (depth >= ECHO.depth || entries++ >= ECHO.entries || budget <= 0) break;
      if (Object.prototype.hasOwnProperty.call(v, key)) out[text(key)] = walk((v as Record<string, unknown>)[key], depth + 1);
    }
    return out;
  };
  return walk(value, 0);
}

/** Issues within the ECHO bounds: the first ones, with clipped keys and messages. */
function boundedIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const kept = issues.slice(0, ECHO.issues).map((i) => ({
    ...i,
    path: i.path.map((p) => (typeof p === 'string' ? clip(p, ECHO.stringChars) : p)),
    message: clip(i.message, ECHO.messageChars),
  }));
  if (issues.length > kept.length) kept.push({ code: 'custom', path: [], message: `${issues.length - kept.length} more issue(s) not shown` });
  return kept;
}

/** The error as rendered: echo, issues and message bounded (see ECHO). */
function bounded(error: NormalizedError): NormalizedError {
  return {
    ...error,
    message: clip(error.message, ECHO.messageChars),
    ...(error.issues ? { issues: boundedIssues(error.issues), input: boundedEcho(error.input) } : {}),
    ...(error.data ? { data: boundedEcho(error.data) as Record<string, unknown> } : {}),
  };
}

function messageOf(response: object, fallback: string): string {
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : fallback;
}

function normalize(exception: unknown, req: Request): NormalizedError {
  const requestId = req.id;
  if (isConnectionLoss(exception)) exception = new ServiceUnavailableError('The database connection was lost or is busy: send the request again');
  if (exception instanceof ValidationError) {
    return { status: 400, name: 'BadRequestError', message: exception.message, issues: exception.issues, input: exception.input, requestId };
  }
  if (exception instanceof DomainError) {
    return { status: exception.status, name: exception.errorName, message: exception.message, data: exception.data, requestId };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) {
      return { status, name: 'NotFoundError', message: `Route not found: ${req.method} ${req.path}`, requestId };
    }
    const response = exception.getResponse();
    const message = typeof response === 'string' ? response : messageOf(response, exception.message);
    if (status === 400) {
      // e.g. a malformed JSON body: still a validation body naming what was wrong.
      return { status, name: 'BadRequestError', message, issues: [{ code: 'custom', path: [], message }], input: null, requestId };
    }
    return { status, name: status === 413 ? 'PayloadTooLargeError' : 'BadRequestError', message, requestId };
  }
  // body-parser errors (malformed JSON, oversize body) carry an HTTP status of their own.
  const parserError = exception as { status?: number; type?: string; message?: string };
  if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
    if (parserError.type === 'entity.parse.failed') {
      return {
        status: 400,
        name: 'BadRequestError',
        message: 'Malformed JSON body',
        issues: [{ code: 'invalid_json', path: [], message: 'Malformed JSON body' }],
        input: null,
        requestId,
      };
    }
    return {
      status: parserError.status,
      name: parserError.status === 413 ? 'PayloadTooLargeError' : 'BadRequestError',
      message: parserError.status === 413 ? 'Request body too large' : (parserError.message ?? 'Bad request'),
      requestId,
    };
  }
  return { status: 500, name: 'UnknownError', message: 'Unexpected server error', requestId };
}

/** Answers `error` in the dialect of the surface the request addressed (for Express middleware, outside Nest's filters). */
export function sendError(req: Request, res: Response, exception: unknown): void {
  reply(req, res, normalize(exception, req));
}

function reply(req: Request, res: Response, error: NormalizedError): void {
  if (error.status === 503) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  if (error.status === 429 && typeof error.data?.retryAfter === 'number') res.setHeader('Retry-After', String(error.data.retryAfter));
  res.status(error.status).json(renderers[surfaceOf(req)].render(bounded(error)));
}

/** Renders every error in the dialect of the surface the request addressed. Never leaks a stack. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const error = normalize(exception, req);
    if (error.status === 503) this.logger.warn({ msg: 'database unavailable', requestId: req.id, path: req.path, err: String((exception as Error)?.message ?? exception) });
    else if (error.status >= 500) {
      this.logger.error({ msg: 'unhandled error', requestId: req.id, path: req.path, err: (exception as Error)?.stack ?? String(exception) });
    }
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    reply(req, res, error);
  }
}
