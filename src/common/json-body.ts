import type { IncomingMessage } from 'node:http';
import { json } from 'express';
import type { Request, RequestHandler } from 'express';
import { issue, ValidationError } from './errors';

/**
 * Deepest nesting of arrays and objects a JSON body may have. The deepest real payloads (a config,
 * a Traefik plugin's options, a tool call's input) stay under about ten levels; 64 leaves ample room
 * while keeping every recursive walk after parsing (validation, JSON.stringify of an echo or a
 * stored row, jsonb) thousands of frames away from a stack overflow.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const NUL_ESCAPE = Buffer.from('\\u0000');

/**
 * Whether JSON text nests deeper than `max`, read from the raw UTF-8 bytes before parsing (a
 * reviver sees values only after the whole tree is built). Brackets inside strings do not count;
 * UTF-8 continuation bytes are never ASCII, so a byte scan cannot mistake one for a bracket.
 */
export function nestsDeeperThan(text: Uint8Array | string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = typeof text === 'string' ? text.charCodeAt(i) : text[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/**
 * body-parser `verify` hook of the JSON parser: refuses too-deep bodies with a 400 validation error
 * (rendered in each surface's dialect) before JSON.parse builds them.
 */
export function refuseDeepJson(
  req: IncomingMessage,
  _res: unknown,
  body: Buffer,
  encoding: string | null,
): void {
  const utf8 = !encoding || /^utf-?8$/i.test(encoding);
  // Other UTF encodings (rare: RFC 8259 requires UTF-8) are decoded first: their bytes are not ASCII-safe.
  let text: Uint8Array | string = body;
  if (!utf8) {
    try {
      text = new TextDecoder(encoding).decode(body);
    } catch {
      throw Object.assign(new Error(`unsupported charset "${encoding}": send UTF-8`), {
        status: 415,
        type: 'charset.unsupported',
      });
    }
  }
  (req as Request).jsonBody = true;
  // JSON cannot carry a raw NUL in a string or key, only the escape: without one, TextInputGuard need not walk the body.
  (req as Request).nulFreeJson =
    typeof text === 'string' ? !text.includes('\\u0000') : !body.includes(NUL_ESCAPE);
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    const error = new ValidationError(
      [issue([], `JSON nests deeper than ${MAX_JSON_DEPTH} levels`, 'too_deep')],
      null,
    );
    // body-parser keeps an error's own status (instead of its 403 for verify failures) and type.
    Object.assign(error, { type: 'entity.too.deep' });
    throw error;
  }
}

/** What a client's JSON request names as its type (lower-cased); any other form goes to body-parser. */
const PLAIN_JSON_TYPES = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
]);
/** The largest body read directly; a larger one streams through body-parser against the limit. */
const DIRECT_MAX_BYTES = 64 * 1024;
const FIRST_NON_WHITESPACE = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d]|$)/;

/**
 * JSON bodies up to `limit`, refused when deeper than MAX_JSON_DEPTH. A plain UTF-8 body of declared
 * length up to 64 KB, what clients send nearly always, is read here without body-parser's type,
 * charset and stream-decoder work (about a fifth of a create's extra CPU over the health path, for
 * a two-byte body). Everything else (a charset or content encoding, a chunked or larger body) goes
 * through `general`, body-parser. Both end alike, error bodies included: `{}` for an empty body, only
 * an object or array at the top, a leading BOM dropped, and errors built as body-parser builds them
 * (Nest maps a SyntaxError to its message, and a parser error with a `type` and `statusCode` to its status).
 */
export function jsonBodies(
  limit: string,
  general: RequestHandler = json({ limit, verify: refuseDeepJson }),
): RequestHandler {
  return (req, res, next) => {
    const { 'content-type': type, 'content-length': length } = req.headers;
    const direct =
      type !== undefined &&
      PLAIN_JSON_TYPES.has(type.toLowerCase()) &&
      length !== undefined &&
      /^\d{1,6}$/.test(length) &&
      Number(length) <= DIRECT_MAX_BYTES &&
      req.headers['content-encoding'] === undefined &&
      req.headers['transfer-encoding'] === undefined &&
      // Not yet read by anyone (a body that arrived with its headers is complete, and still readable).
      req.readable;
    if (!direct) return general(req, res, next);
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      next(error);
    };
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('error', () => settle(parserError(new Error('request aborted'), 400, 'request.aborted')));
    req.once('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      try {
        refuseDeepJson(req, res, body, 'utf-8');
      } catch (error) {
        const refusal = error as Error & { status?: number; type?: string };
        return settle(parserError(refusal, refusal.status ?? 403, refusal.type ?? 'entity.verify.failed'));
      }
      try {
        req.body = parseTopLevel(body.toString());
      } catch (error) {
        return settle(parserError(error as Error, 400, 'entity.parse.failed'));
      }
      settle();
    });
  };
}

/** The error as body-parser hands it on (http-errors' `createError(status, error, {type})`). */
function parserError(error: Error, status: number, type: string): Error {
  return Object.assign(error, { status, statusCode: status, expose: status < 500, type });
}

/** body-parser's strict parse: `{}` for nothing, else an object or array. */
function parseTopLevel(text: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  if (text[0] !== '{' && text[0] !== '[') {
    const first = FIRST_NON_WHITESPACE.exec(text)?.[1] || undefined;
    if (first !== '{' && first !== '[') throw strictViolation(text, first);
  }
  return JSON.parse(text);
}

/**
 * body-parser's error for a body that is no object or array: what JSON.parse says of its first
 * character, with the text from there on in the message (of an empty text, for whitespace only).
 */
function strictViolation(text: string, first: string | undefined): SyntaxError {
  const at = first === undefined ? -1 : text.indexOf(first);
  const partial = at === -1 ? '' : text.slice(0, at) + '#'.repeat(text.length - at);
  try {
    JSON.parse(partial);
    return new SyntaxError('strict violation');
  } catch (error) {
    const syntax = error as SyntaxError;
    const message = syntax.message.replace(/#+/g, (placeholder) =>
      text.substring(at, at + placeholder.length),
    );
    syntax.stack = syntax.stack?.replace(syntax.message, message);
    syntax.message = message;
    return syntax;
  }
}
