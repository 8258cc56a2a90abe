import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
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
export function refuseDeepJson(req: IncomingMessage, _res: unknown, body: Buffer, encoding: string | null): void {
  const utf8 = !encoding || /^utf-?8$/i.test(encoding);
  // Other UTF encodings (rare: RFC 8259 requires UTF-8) are decoded first: their bytes are not ASCII-safe.
  let text: Uint8Array | string = body;
  if (!utf8) {
    try {
      text = new TextDecoder(encoding).decode(body);
    } catch {
      throw Object.assign(new Error(`unsupported charset "${encoding}": send UTF-8`), { status: 415, type: 'charset.unsupported' });
    }
  }
  // JSON cannot carry a raw NUL in a string or key, only the escape: without one, TextInputGuard need not walk the body.
  (req as Request).nulFreeJson = typeof text === 'string' ? !text.includes('\\u0000') : !body.includes(NUL_ESCAPE);
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    const error = new ValidationError([issue([], `JSON nests deeper than ${MAX_JSON_DEPTH} levels`, 'too_deep')], null);
    // body-parser keeps an error's own status (instead of its 403 for verify failures) and type.
    Object.assign(error, { type: 'entity.too.deep' });
    throw error;
  }
}
