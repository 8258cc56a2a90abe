/**
 * SessionService — sessions of a project (shared by every directory of one repository).
 *
 *   create(instance, {parentID?, title?, agent?, model?}) → Session   session.created then session.updated {sessionID, info}
 *   get(id) → Session                                    NotFoundError "Session not found: <id>"; non-`ses` id → 400
 *   list(projectID) → SerializedJson<Session[]>          most recently updated first (shared by concurrent requests)
 *   children(id) → Session[]
 *   update(id, patch) → Session                          title, archived, revert, share, summary, compacting
 *                                                        (null clears); bumps time.updated; session.updated
 *   addUsage(id, cost, tokens) → Session                 a finished step's cost and tokens added to the session's
 *   touch(id) → Session                                  time.updated = now; session.updated
 *   delete(id) → void                                    recursive (children first), one transaction over every
 *                                                        registered cascade (messages, parts, todos, permissions…);
 *                                                        session.deleted {sessionID, info} per session
 *   locate(id) → {directory, projectID}                  cached; where a session's events are published
 *   onDelete(cascade)                                    other modules delete their rows inside the transaction
 *   publish(sessionID, type, properties)                 publish on the session's directory
 *   diff(id) / setDiff(id, diffs)                        stored FileDiff[] (empty when none)
 *   share(id, publicBase) / unshare(id) → Session        share record; url = <public base>/share/<random 144-bit id>
 *   sharedSession(shareID) → sessionID | undefined       what a share page shows
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomBytes, randomUUID } from 'node:crypto';
import { relative, sep } from 'node:path';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { SerializedJson } from '../common/serialized-json';
import { BadRequestError, NotFoundError, ValidationError, issue } from '../common/errors';
import { descendingId } from '../common/ids';
import { BatchedInsert } from '../database/batched-insert';
import { pgPool, queryPool } from '../database/pg-pool';
import { EventBus } from '../events/event-bus.service';
import type { Instance } from '../projects/instance.service';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import {
  FileDiff,
  Session,
  SessionDiffEntity,
  SessionEntity,
  SessionModel,
  SessionRevert,
  SessionShareEntity,
  SessionSummary,
  NO_TOKENS,
  TokenUsage,
  toSession,
} from './session.entity';
import { SessionLists, sessionLists } from './session-lists';
import { SESSION_COLUMNS, SessionRow, fromRow } from './session-rows';
import { newSlug } from './slug';

const VERSION: string = (require('../../package.json') as { version: string }).version;

/** Deletes a module's rows of these sessions, inside the deleting transaction. */
export type SessionCascade = (manager: EntityManager, sessionIDs: string[]) => Promise<void>;

export interface SessionLocation {
  directory: string;
  projectID: string;
}

/** Fields a caller may change; `null` clears an optional field. */
export interface SessionPatch {
  title?: string;
  archived?: number | null;
  compacting?: number | null;
  revert?: SessionRevert | null;
  share?: { url: string } | null;
  summary?: SessionSummary | null;
}

/** What `POST /session` takes: the reference's fields, and the agent and model opencode 1.18 sends. */
export interface SessionCreateInput {
  parentID?: string;
  title?: string;
  agent?: unknown;
  model?: unknown;
}

const LOCATION_CACHE_LIMIT = 10_000;

/** Share ids Keel hands out (24 base64url chars); shorter ones of older versions are not served. */
const SHARE_ID = /^[A-Za-z0-9_-]{22,64}$/;
/**
 * PostgreSQL: session INSERTs running at once. Each waits for its commit's WAL flush; the creates that
 * arrive meanwhile go together in the next statement. Two measured 35–45 % more creates per second
 * than eight at 10 connections (fewer statements of more rows: less work per row on both sides) with
 * the same latency, and one did no better than two.
 */
const INSERTS_IN_FLIGHT = 2;

/** What `create` writes, in the order of its values. */
const INSERTED_COLUMNS = [
  'id', 'project_id', 'parent_id', 'directory', 'slug', 'path', 'agent', 'model', 'title', 'version', 'time_created', 'time_updated',
] as const;

/** `agent` of a new session: an agent's name (which agents exist is the prompt's business). */
function sessionAgent(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 256) {
    throw new ValidationError([issue(['agent'], 'Invalid input: expected a non-empty string of at most 256 characters')], { agent: value });
  }
  return value;
}

/** `model` of a new session: `{providerID, id, variant?}` as opencode 1.18 sends it. */
function sessionModel(value: unknown): SessionModel {
  const model = value as Record<string, unknown>;
  const text = (key: string, optional = false): string | undefined => {
    const field = model[key];
    if (optional && field === undefined) return undefined;
    if (typeof field !== 'string' || field.length === 0 || field.length > 256) {
      throw new ValidationError([issue(['model', key], 'Invalid input: expected a non-empty string of at most 256 characters')], { [`model.${key}`]: field });
    }
    return field;
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError([issue(['model'], 'Invalid input: expected an object {providerID, id}')], { model: value });
  }
  const variant = text('variant', true);
  return { id: text('id')!, providerID: text('providerID')!, ...(variant ? { variant } : {}) };
}

/** 400 naming `field` unless `id` has the id prefix of its kind (`ses`, `msg`, `prt`, `per`). */
export function assertIdPrefix(id: string, prefix: string, field: string): void {
  if (!id.startsWith(prefix)) {
    throw new ValidationError(
      [issue([field], `Invalid string: must start with "${prefix}"`, 'invalid_format')],
      { [field]: id },
    );
  }
}

/** 400 naming `field` unless `id` is a session id. */
export function assertSessionID(id: string, field = 'sessionID'): void {
  assertIdPrefix(id, 'ses', field);
}

/** Farthest a Date reaches from 1970 (±100,000,000 days): a client's time past it is no time at all. */
const MAX_EPOCH_MS = 8.64e15;

/**
 * A client's epoch-milliseconds value for a bigint column: the reference's schema says only
 * `number`, so fractions are rounded (PostgreSQL refuses 1.5 for a bigint) and out-of-range values refused.
 */
function epochMillis(value: number, path: string[]): number {
  if (!Number.isFinite(value) || Math.abs(value) > MAX_EPOCH_MS) {
    throw new ValidationError(
      [issue(path, `must be a time in epoch milliseconds (at most ${MAX_EPOCH_MS})`)],
      { [path.join('.')]: value },
    );
  }
  return Math.round(value);
}

@Injectable()
export class SessionService {
  private readonly cascades: SessionCascade[] = [];
  private readonly locations = new Map<string, SessionLocation>();
  private readonly getSql: string;
  /** Concurrent creates go to the database as multi-row INSERTs (a round trip and a commit for several). */
  private readonly inserts: BatchedInsert;
  /** `GET /session`'s reads, as each engine makes them cheap (see session-lists.ts). */
  private readonly lists: SessionLists;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
    @InjectRepository(SessionDiffEntity) private readonly diffs: Repository<SessionDiffEntity>,
    @InjectRepository(SessionShareEntity) private readonly shares: Repository<SessionShareEntity>,
    private readonly bus: EventBus,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
  ) {
    const pg = dataSource.options.type === 'postgres';
    this.getSql = `SELECT ${SESSION_COLUMNS} FROM "session" WHERE "id" = ${pg ? '$1' : '?'}`;
    // On PostgreSQL straight to the pool: TypeORM's query runner cost about 5 µs a create.
    const pool = pgPool(dataSource);
    this.inserts = new BatchedInsert(
      pool ? (sql, parameters) => queryPool(pool, sql, parameters) : (sql, parameters) => this.dataSource.query(sql, parameters),
      'session',
      INSERTED_COLUMNS,
      pg ? 'postgres' : 'sqlite',
      // SQLite writes one statement at a time anyway.
      pg ? INSERTS_IN_FLIGHT : 1,
    );
    this.lists = sessionLists(dataSource);
  }

  onDelete(cascade: SessionCascade): void {
    this.cascades.push(cascade);
  }

  async create(instance: Instance, input: SessionCreateInput = {}): Promise<Session> {
    const agent = input.agent === undefined || input.agent === null ? null : sessionAgent(input.agent);
    const model = input.model === undefined || input.model === null ? null : sessionModel(input.model);
    if (input.parentID !== undefined) {
      assertSessionID(input.parentID, 'parentID');
      const parent = await this.find(input.parentID);
      if (!parent) {
        throw new ValidationError([issue(['parentID'], `Session not found: ${input.parentID}`)], {
          parentID: input.parentID,
        });
      }
    }
    const now = Date.now();
    // A plain assignment: the repository's create() maps the object through the entity's metadata (about 9 µs).
    const row = Object.assign(new SessionEntity(), {
      id: descendingId('ses'),
      projectID: instance.project.id,
      parentID: input.parentID ?? null,
      directory: instance.directory,
      slug: newSlug(),
      // Outside git a directory is its own root.
      path: instance.project.vcs === 'git' ? relative(instance.worktree, instance.directory).split(sep).join('/') : '',
      agent,
      model,
      title:
        input.title ?? `${input.parentID ? 'Child session' : 'New session'} - ${new Date(now).toISOString()}`,
      version: VERSION,
      timeCreated: now,
      timeUpdated: now,
    });
    await this.inserts.insert([
      row.id,
      row.projectID,
      row.parentID,
      row.directory,
      row.slug,
      row.path,
      row.agent,
      row.model ? JSON.stringify(row.model) : null,
      row.title,
      row.version,
      row.timeCreated,
      row.timeUpdated,
    ]);
    this.remember(row);
    this.changed(row.projectID);
    const info = toSession(row);
    // `sessionID` beside the reference's `{info}`, as on message events: newer opencode clients read it.
    this.bus.publish(row.directory, 'session.created', { sessionID: info.id, info });
    this.bus.publish(row.directory, 'session.updated', { sessionID: info.id, info });
    return info;
  }

  async get(id: string): Promise<Session> {
    return toSession(await this.row(id));
  }

  /** The project's sessions, most recently updated first, serialized once for every request the same read answers. */
  list(projectID: string): Promise<SerializedJson<Session[]>> {
    return this.lists.list(projectID);
  }

  async children(id: string): Promise<Session[]> {
    await this.row(id);
    const rows = await this.sessions.find({ where: { parentID: id }, order: { id: 'ASC' } });
    return rows.map(toSession);
  }

  async update(id: string, patch: SessionPatch): Promise<Session> {
    const row = await this.row(id);
    if (patch.title !== undefined) row.title = patch.title;
    if (patch.archived !== undefined)
      row.timeArchived = patch.archived === null ? null : epochMillis(patch.archived, ['time', 'archived']);
    if (patch.compacting !== undefined) row.timeCompacting = patch.compacting;
    if (patch.revert !== undefined) row.revert = patch.revert;
    if (patch.share !== undefined) row.share = patch.share;
    if (patch.summary !== undefined) row.summary = patch.summary;
    row.timeUpdated = Math.max(Date.now(), row.timeUpdated);
    await this.sessions.update(
      { id },
      {
        title: row.title,
        timeArchived: row.timeArchived ?? null,
        timeCompacting: row.timeCompacting ?? null,
        revert: row.revert ?? null,
        share: row.share ?? null,
        summary: row.summary ?? null,
        timeUpdated: row.timeUpdated,
      },
    );
    this.changed(row.projectID);
    const info = toSession(row);
    this.bus.publish(row.directory, 'session.updated', { sessionID: info.id, info });
    return info;
  }

  touch(id: string): Promise<Session> {
    return this.update(id, {});
  }

  /** A finished step's cost and tokens, added to what the session's replies cost so far. */
  async addUsage(id: string, cost: number, tokens: TokenUsage): Promise<Session> {
    const row = await this.row(id);
    const usage = row.usage ?? { cost: 0, tokens: NO_TOKENS };
    row.usage = {
      cost: usage.cost + cost,
      tokens: {
        input: usage.tokens.input + tokens.input,
        output: usage.tokens.output + tokens.output,
        reasoning: usage.tokens.reasoning + tokens.reasoning,
        cache: { read: usage.tokens.cache.read + tokens.cache.read, write: usage.tokens.cache.write + tokens.cache.write },
      },
    };
    await this.sessions.update({ id }, { usage: row.usage });
    this.changed(row.projectID);
    const info = toSession(row);
    this.bus.publish(row.directory, 'session.updated', { sessionID: info.id, info });
    return info;
  }

  async delete(id: string): Promise<void> {
    const root = await this.row(id);
    // Breadth-first, then reversed: descendants are deleted (and announced) before their parents.
    const order: SessionEntity[] = [root];
    for (let i = 0; i < order.length; i++) {
      order.push(...(await this.sessions.find({ where: { parentID: order[i].id } })));
    }
    order.reverse();
    const ids = order.map((s) => s.id);
    await this.dataSource.transaction(async (manager) => {
      for (const cascade of this.cascades) await cascade(manager, ids);
      await manager.delete(SessionDiffEntity, { sessionID: In(ids) });
      await manager.delete(SessionShareEntity, { sessionID: In(ids) });
      await manager.delete(SessionEntity, { id: In(ids) });
    });
    for (const projectID of new Set(order.map((row) => row.projectID))) this.changed(projectID);
    for (const row of order) {
      this.locations.delete(row.id);
      this.bus.publish(row.directory, 'session.deleted', { sessionID: row.id, info: toSession(row) });
    }
  }

  /** Where a session lives; cached because every streamed part needs it. */
  async locate(id: string): Promise<SessionLocation> {
    const cached = this.locations.get(id);
    if (cached) return cached;
    return this.remember(await this.row(id));
  }

  /** Publish an event on the directory the session belongs to. */
  async publish<P>(sessionID: string, type: string, properties: P, directory?: string): Promise<void> {
    this.bus.publish(directory ?? (await this.locate(sessionID)).directory, type, properties);
  }

  async diff(id: string): Promise<FileDiff[]> {
    await this.row(id);
    return (await this.diffs.findOneBy({ sessionID: id }))?.diffs ?? [];
  }

  async setDiff(id: string, diffs: FileDiff[]): Promise<void> {
    const location = await this.locate(id);
    await this.diffs.upsert({ sessionID: id, diffs }, ['sessionID']);
    this.bus.publish(location.directory, 'session.diff', { sessionID: id, diff: diffs });
  }

  /**
   * Shares a session: a random share id (144 bits, unguessable), kept while shared, so sharing
   * again answers the same url. `publicBase` is where this server is reached (KEEL_PUBLIC_URL or
   * the request's address); KEEL_SHARE_BASE_URL names an external share host instead.
   */
  async share(id: string, publicBase: string): Promise<Session> {
    const row = await this.row(id);
    if (!this.settings.sessions.shareEnabled)
      throw new BadRequestError('Sharing is disabled on this server (KEEL_SHARE=off)');
    let record = await this.shares.findOneBy({ sessionID: id });
    if (!record) {
      const shareID = randomBytes(18).toString('base64url');
      // Two shares of one session at once (or on two replicas): the first insert wins, both answer its url.
      await this.shares
        .createQueryBuilder()
        .insert()
        .values({
          sessionID: id,
          shareID,
          url: `${this.settings.sessions.shareBaseUrl ?? publicBase}/share/${shareID}`,
          secret: randomUUID(),
          timeCreated: Date.now(),
        })
        .orIgnore()
        .execute();
      record = await this.shares.findOneByOrFail({ sessionID: id });
    }
    if (row.share?.url === record.url) return toSession(row);
    return this.update(id, { share: { url: record.url } });
  }

  /** Revokes the share at once: its url answers 404 and open share viewers are told (session.updated without share). */
  async unshare(id: string): Promise<Session> {
    await this.row(id);
    await this.shares.delete({ sessionID: id });
    return this.update(id, { share: null });
  }

  /** The session a share id currently shares, if any. */
  async sharedSession(shareID: string): Promise<string | undefined> {
    if (!SHARE_ID.test(shareID)) return undefined;
    return (await this.shares.findOneBy({ shareID }))?.sessionID;
  }

  /** Whether `sessionID` is still shared under `shareID` (checked by open share viewers). */
  async isShared(sessionID: string, shareID: string): Promise<boolean> {
    return (await this.shares.countBy({ sessionID, shareID })) > 0;
  }

  private async row(id: string): Promise<SessionEntity> {
    assertSessionID(id);
    const row = await this.find(id);
    if (!row) throw new NotFoundError(`Session not found: ${id}`);
    return row;
  }

  private async find(id: string): Promise<SessionEntity | undefined> {
    const [row] = await this.dataSource.query<SessionRow[]>(this.getSql, [id]);
    return row ? fromRow(row) : undefined;
  }

  /** A session of `projectID` was written. */
  private changed(projectID: string): void {
    this.lists.changed(projectID);
  }

  private remember(row: SessionEntity): SessionLocation {
    if (this.locations.size >= LOCATION_CACHE_LIMIT) this.locations.clear();
    const location = { directory: row.directory, projectID: row.projectID };
    this.locations.set(row.id, location);
    return location;
  }
}
