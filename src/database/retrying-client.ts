import { Client } from 'pg';
import type { ClientConfig, QueryResult } from 'pg';
import { isConnectionLoss } from './connection-loss';

/**
 * The server's own word that it aborted the statement (a terminated backend, a shutdown, a restart),
 * or the client's that it never sent it: nothing of it was applied, so any statement may be sent again.
 */
const NOT_APPLIED_CODES = new Set(['57P01', '57P02', '57P03']);
const NOT_SENT = /not queryable/;

function notApplied(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return NOT_APPLIED_CODES.has(String(e?.code)) || NOT_SENT.test(String(e?.message));
}

/** Statements complete in themselves (not transaction control or session settings), and those that only read. */
const STANDALONE = /^\s*(SELECT|WITH|SHOW|INSERT|UPDATE|DELETE)\b/i;
const READ = /^\s*(SELECT|WITH|SHOW)\b/i;
const WRITES = /\b(INSERT|UPDATE|DELETE|MERGE|pg_notify|nextval|setval|pg_advisory\w*)\b/i;
const BEGINS = /^\s*(START TRANSACTION|BEGIN)\b/i;
const ENDS = /^\s*(COMMIT|END|ROLLBACK)\s*(;\s*)?$/i;
/** Fresh connections tried after the lost one (each may be lost in turn while a server restarts). */
const ATTEMPTS = 3;

/**
 * A statement in a promise form: `query(text, values)`, or `query({ text, values, name })` (prepared
 * once per connection under its name).
 */
type Statement = { text: string; values?: unknown[]; name?: string };

const STATEMENT_KEYS = new Set(['text', 'values', 'name']);

/** The statement of a call of `query` in one of those forms. */
function retriable([first, values, callback]: unknown[]): Statement | undefined {
  if (callback !== undefined || typeof values === 'function') return undefined;
  if (typeof first === 'string') return { text: first, values: values as unknown[] | undefined };
  const config = first as Record<string, unknown> | null;
  const plain = values === undefined && typeof config?.text === 'string' && Object.keys(config).every((key) => STATEMENT_KEYS.has(key));
  return plain ? (config as Statement) : undefined;
}

/**
 * The pool's PostgreSQL client (`Client` of pg-pool's options). A statement that meets a lost
 * connection is sent again on a fresh connection when that cannot apply it twice: a read, whatever
 * happened (a terminated backend, a server restart, a cut network), and any statement the server says
 * it aborted or the client never sent. Only statements complete in themselves, outside a transaction
 * (whose earlier statements died with the connection). Anything else that meets it fails, and the
 * request is answered 503 with Retry-After (see HttpErrorFilter), never 500. A lost connection never
 * ends the process (see the constructor).
 */
export class RetryingClient extends Client {
  private inTransaction = false;

  constructor(private readonly connectWith: ClientConfig) {
    super(connectWith);
    // pg emits 'error' when the server ends a connection between queries (a terminated backend): the pool
    // or TypeORM listen while they hold the client, but not in every moment between them, and an
    // 'error' nobody hears ends the process. What they do not hear is dropped here; the next query on the
    // client then fails as "not queryable" and is sent again (above).
    this.on('error', () => undefined);
  }

  // The overloads of pg's query stay as they are; only the promise forms of a statement are retried.
  override query(...args: unknown[]): never {
    const query = (super.query as (...a: unknown[]) => unknown).bind(this);
    const statement = retriable(args);
    if (statement === undefined) return query(...args) as never;
    return this.queryStatement(statement, query) as never;
  }

  private async queryStatement(statement: Statement, query: (...a: unknown[]) => unknown): Promise<QueryResult> {
    const { text } = statement;
    try {
      const result = (await query(statement)) as QueryResult;
      if (BEGINS.test(text)) this.inTransaction = true;
      else if (ENDS.test(text)) this.inTransaction = false;
      return result;
    } catch (error) {
      if (ENDS.test(text)) this.inTransaction = false;
      if (this.inTransaction || !STANDALONE.test(text)) throw error;
      const readOnly = READ.test(text) && !WRITES.test(text);
      const again = (failure: unknown) => notApplied(failure) || (readOnly && isConnectionLoss(failure));
      if (!again(error)) throw error;
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.onFreshConnection(statement);
        } catch (failure) {
          if (attempt >= ATTEMPTS || !again(failure)) throw failure;
          await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
        }
      }
    }
  }

  private async onFreshConnection(statement: Statement): Promise<QueryResult> {
    const fresh = new Client(this.connectWith);
    // Lost in turn, it fails its query; unheard, the same 'error' would end the process.
    fresh.on('error', () => undefined);
    await fresh.connect();
    try {
      return await fresh.query(statement);
    } finally {
      await fresh.end().catch(() => undefined);
    }
  }
}
