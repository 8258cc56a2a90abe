import { randomBytes } from 'node:crypto';

/** Id prefixes of the session surface (opencode's `Identifier`). */
type IdPrefix = 'ses' | 'msg' | 'prt' | 'per' | 'pty' | 'usr' | 'evt' | 'tool';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

let lastTimestamp = 0;
let counter = 0;

/** Random bytes drawn from the OS in blocks: one `randomBytes` call per id cost more than the rest of an insert's CPU. */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomBase62(length: number): string {
  if (poolOffset + length > pool.length) {
    pool = randomBytes(Math.max(POOL_SIZE, length));
    poolOffset = 0;
  }
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[pool[poolOffset + i] % 62];
  poolOffset += length;
  return out;
}

/**
 * `<prefix>_` + 12 hex chars of (ms timestamp × 4096 + counter) + 14 base62 chars.
 * Descending ids invert the 48-bit value so that newer ids sort first.
 */
function createId(prefix: IdPrefix, direction: 'ascending' | 'descending' = 'ascending'): string {
  const now = Date.now();
  if (now !== lastTimestamp) {
    lastTimestamp = now;
    counter = 0;
  }
  counter++;
  let value = BigInt(now) * 0x1000n + BigInt(counter);
  if (direction === 'descending') value = ~value & 0xffffffffffffn;
  return `${prefix}_${value.toString(16).padStart(12, '0').slice(-12)}${randomBase62(14)}`;
}

export const ascendingId = (prefix: IdPrefix): string => createId(prefix, 'ascending');
export const descendingId = (prefix: IdPrefix): string => createId(prefix, 'descending');

/** 16 lowercase hex characters, as middleware-manager makes its ids. */
export function hexId(): string {
  return randomBytes(8).toString('hex');
}

/** 22-character base62 random id, the id format of memory documents. */
export function documentId(length = 22): string {
  return randomBase62(length);
}
