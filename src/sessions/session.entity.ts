import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochColumn, JsonColumn } from '../common/columns';
import { slugOf } from './slug';

/** The reference's `FileDiff`: full before/after contents of one worktree-relative file. */
export interface FileDiff {
  file: string;
  before: string;
  after: string;
  additions: number;
  deletions: number;
}

export interface SessionSummary {
  additions: number;
  deletions: number;
  files: number;
  diffs?: FileDiff[];
}

export interface SessionRevert {
  messageID: string;
  partID?: string;
  snapshot?: string;
  diff?: string;
}

/** Tokens of a reply or a whole session, as messages carry them. */
export interface TokenUsage {
  input: number;
  output: number;
  reasoning: number;
  cache: { read: number; write: number };
}

/** The model a session last prompted (opencode 1.18's `{id, providerID, variant?}`). */
export interface SessionModel {
  id: string;
  providerID: string;
  variant?: string;
}

/** What a session's replies cost so far. */
export interface SessionUsage {
  cost: number;
  tokens: TokenUsage;
}

export const NO_TOKENS: TokenUsage = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };

/**
 * The reference's `Session` record, exactly as the API sends it (absent optionals omitted), with the
 * fields opencode 1.18 added (`slug`, `path`, `cost`, `tokens`, `agent`, `model`): older clients ignore them.
 */
export interface Session {
  id: string;
  slug: string;
  projectID: string;
  directory: string;
  /** The session's directory relative to its project's worktree ("" at the root). */
  path?: string;
  parentID?: string;
  summary?: SessionSummary;
  cost: number;
  tokens: TokenUsage;
  share?: { url: string };
  title: string;
  agent?: string;
  model?: SessionModel;
  version: string;
  time: { created: number; updated: number; compacting?: number; archived?: number };
  revert?: SessionRevert;
}

// Sessions belong to a project (two directories of one repository share them); the list is read
// most-recently-updated first, children by parent. Only child sessions are in the parent index: a
// create without a parent (nearly all of them) writes three b-trees, not four.
@Entity('session')
@Index('IDX_session_project_updated', ['projectID', 'timeUpdated'])
@Index('IDX_session_parent', ['parentID'], { where: 'parent_id IS NOT NULL' })
export class SessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'project_id', type: 'varchar', length: 64 })
  projectID: string;

  @Column({ name: 'parent_id', type: 'varchar', length: 64, nullable: true })
  parentID: string | null;

  @Column({ type: 'text' })
  directory: string;

  /** A readable name (`misty-forest`); sessions written before it existed derive theirs from the id. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  slug: string | null;

  @Column({ type: 'text', nullable: true })
  path: string | null;

  @Column({ type: 'varchar', length: 256, nullable: true })
  agent: string | null;

  @JsonColumn()
  model?: SessionModel | null;

  /** Cost and tokens of every reply so far. */
  @JsonColumn()
  usage?: SessionUsage | null;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'varchar', length: 32 })
  version: string;

  @JsonColumn()
  summary?: SessionSummary | null;

  @JsonColumn()
  share?: { url: string } | null;

  @JsonColumn()
  revert?: SessionRevert | null;

  @EpochColumn({ name: 'time_created' })
  timeCreated: number;

  @EpochColumn({ name: 'time_updated' })
  timeUpdated: number;

  @EpochColumn({ name: 'time_compacting', nullable: true })
  timeCompacting?: number | null;

  @EpochColumn({ name: 'time_archived', nullable: true })
  timeArchived?: number | null;
}

export function toSession(row: SessionEntity): Session {
  return {
    id: row.id,
    slug: row.slug ?? slugOf(row.id),
    projectID: row.projectID,
    directory: row.directory,
    ...(row.path != null ? { path: row.path } : {}),
    ...(row.parentID ? { parentID: row.parentID } : {}),
    ...(row.summary ? { summary: row.summary } : {}),
    cost: row.usage?.cost ?? 0,
    tokens: row.usage?.tokens ?? NO_TOKENS,
    ...(row.share ? { share: row.share } : {}),
    title: row.title,
    ...(row.agent ? { agent: row.agent } : {}),
    ...(row.model ? { model: row.model } : {}),
    version: row.version,
    time: {
      created: row.timeCreated,
      updated: row.timeUpdated,
      ...(row.timeCompacting != null ? { compacting: row.timeCompacting } : {}),
      ...(row.timeArchived != null ? { archived: row.timeArchived } : {}),
    },
    ...(row.revert ? { revert: row.revert } : {}),
  };
}

/** A session's todo list (replaced whole by `todowrite`). */
@Entity('session_todo')
export class SessionTodoEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 64 })
  sessionID: string;

  @JsonColumn({ nullable: false })
  todos: Todo[];

  @EpochColumn({ name: 'time_updated' })
  timeUpdated: number;
}

export interface Todo {
  content: string;
  status: string;
  priority: string;
  id: string;
}

/** The session-level diff of the last summary (`GET /session/{id}/diff`). */
@Entity('session_diff')
export class SessionDiffEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 64 })
  sessionID: string;

  @JsonColumn({ nullable: false })
  diffs: FileDiff[];
}

/** A share record: the share id of the public page `/share/<shareID>`, its url, and a secret for an external share host. */
@Entity('session_share')
@Index('UQ_session_share_share_id', ['shareID'], { unique: true })
export class SessionShareEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 64 })
  sessionID: string;

  @Column({ name: 'share_id', type: 'varchar', length: 64 })
  shareID: string;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'varchar', length: 64 })
  secret: string;

  @EpochColumn({ name: 'time_created' })
  timeCreated: number;
}
