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
 *                                                        registered cascade (messages, parts, permissions…);
 *                                                        session.deleted {sessionID, info} per session
 *   locate(id) → {directory, projectID}                  cached; where a session's events are published
 *   onDelete(cascade)                                    other modules delete their rows inside the transaction
 *   publish(sessionID, type, properties)                 publish on the session's directory
 *   diff(id) / setDiff(id, diffs)                        stored FileDiff[] (empty when none)
 *   share(id, publicBase) / unshare(id) → Session        share record; url = <public base>/share/<random 144-bit id>
 *   sharedSession(shareID) → sessionID | undefined       what a share page shows
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes, randomUUID } from 'node:crypto';
import { relative, sep } from 'node:path';
import { DataSource, EntityManager } from 'typeorm';
import { SerializedJson, keepJson } from '../common/serialized-json';
import { BadRequestError, NotFoundError, ValidationError, issue } from '../common/errors';
import { descendingId } from '../common/ids';
import { EventBus } from '../events/event-bus.service';
import type { Instance } from '../projects/instance.service';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import {
  FileDiff,
  Session,
  SessionEntity,
  SessionModel,
  SessionRevert,
  SessionSummary,
  NO_TOKENS,
  TokenUsage,
  toSession,
} from './session.entity';
import { SessionRepository } from './session.repository';
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
  /** The agent and model the session was last prompted with (opencode 1.18 keeps them on the session). */
  agent?: string;
  model?: SessionModel;
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

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: SessionRepository,
    private readonly bus: EventBus,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
  ) {}

  onDelete(cascade: SessionCascade): void {
    this.cascades.push(cascade);
  }

  async create(instance: Instance, input: SessionCreateInput = {}): Promise<Session> {
    const agent = input.agent === undefined || input.agent === null ? null : sessionAgent(input.agent);
    const model = input.model === undefined || input.model === null ? null : sessionModel(input.model);
    if (input.parentID !== undefined) {
      assertSessionID(input.parentID, 'parentID');
      const parent = await this.repository.find(input.parentID);
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
    await this.repository.insert(row);
    this.remember(row);
    this.changed(row.projectID);
    // Serialised once for both events and the response (an answer nobody changes afterwards).
    const info = keepJson(toSession(row));
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
    return this.repository.lists.list(projectID);
  }

  async children(id: string): Promise<Session[]> {
    await this.row(id);
    return (await this.repository.children(id)).map(toSession);
  }

  async update(id: string, patch: SessionPatch): Promise<Session> {
    const row = await this.row(id);
    if (patch.title !== undefined) row.title = patch.title;
    if (patch.agent !== undefined) row.agent = patch.agent;
    if (patch.model !== undefined) row.model = patch.model;
    if (patch.archived !== undefined)
      row.timeArchived = patch.archived === null ? null : epochMillis(patch.archived, ['time', 'archived']);
    if (patch.compacting !== undefined) row.timeCompacting = patch.compacting;
    if (patch.revert !== undefined) row.revert = patch.revert;
    if (patch.share !== undefined) row.share = patch.share;
    if (patch.summary !== undefined) row.summary = patch.summary;
    row.timeUpdated = Math.max(Date.now(), row.timeUpdated);
    await this.repository.update(id, {
      title: row.title,
      agent: row.agent,
      model: row.model ?? null,
      timeArchived: row.timeArchived ?? null,
      timeCompacting: row.timeCompacting ?? null,
      revert: row.revert ?? null,
      share: row.share ?? null,
      summary: row.summary ?? null,
      timeUpdated: row.timeUpdated,
    });
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
    await this.repository.update(id, { usage: row.usage });
    this.changed(row.projectID);
    const info = toSession(row);
    this.bus.publish(row.directory, 'session.updated', { sessionID: info.id, info });
    return info;
  }

  async delete(id: string): Promise<void> {
    const root = await this.row(id);
    // Breadth-first, then reversed: descendants are deleted (and announced) before their parents.
    const order = (await this.repository.tree(root)).reverse();
    const ids = order.map((s) => s.id);
    await this.dataSource.transaction(async (manager) => {
      for (const cascade of this.cascades) await cascade(manager, ids);
      await this.repository.remove(ids, manager);
    });
    for (const projectID of new Set(order.map((row) => row.projectID))) this.changed(projectID);
    for (const row of order) {
      this.locations.delete(row.id);
      this.bus.publish(row.directory, 'session.deleted', { sessionID: row.id, info: toSession(row) });
    }
  }

  /** Whether the session is stored (asked of the database: the location cache may hold a deleted one). */
  async exists(id: string): Promise<boolean> {
    return Boolean(await this.repository.find(id));
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
    return this.repository.diff(id);
  }

  async setDiff(id: string, diffs: FileDiff[]): Promise<void> {
    const location = await this.locate(id);
    await this.repository.setDiff(id, diffs);
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
    let record = await this.repository.share(id);
    if (!record) {
      const shareID = randomBytes(18).toString('base64url');
      const url = `${this.settings.sessions.shareBaseUrl ?? publicBase}/share/${shareID}`;
      record = await this.repository.addShare({ sessionID: id, shareID, url, secret: randomUUID(), timeCreated: Date.now() });
    }
    if (row.share?.url === record.url) return toSession(row);
    return this.update(id, { share: { url: record.url } });
  }

  /** Revokes the share at once: its url answers 404 and open share viewers are told (session.updated without share). */
  async unshare(id: string): Promise<Session> {
    await this.row(id);
    await this.repository.removeShare(id);
    return this.update(id, { share: null });
  }

  /** The session a share id currently shares, if any. */
  sharedSession(shareID: string): Promise<string | undefined> {
    return SHARE_ID.test(shareID) ? this.repository.sharedSession(shareID) : Promise.resolve(undefined);
  }

  /** Whether `sessionID` is still shared under `shareID` (checked by open share viewers). */
  isShared(sessionID: string, shareID: string): Promise<boolean> {
    return this.repository.isShared(sessionID, shareID);
  }

  private async row(id: string): Promise<SessionEntity> {
    assertSessionID(id);
    const row = await this.repository.find(id);
    if (!row) throw new NotFoundError(`Session not found: ${id}`);
    return row;
  }

  /** A session of `projectID` was written. */
  private changed(projectID: string): void {
    this.repository.lists.changed(projectID);
  }

  private remember(row: SessionEntity): SessionLocation {
    if (this.locations.size >= LOCATION_CACHE_LIMIT) this.locations.clear();
    const location = { directory: row.directory, projectID: row.projectID };
    this.locations.set(row.id, location);
    return location;
  }
}
