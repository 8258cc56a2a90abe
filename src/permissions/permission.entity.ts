import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { EpochColumn, JsonColumn } from '../common/columns';

export type PermissionResponse = 'once' | 'always' | 'reject';

/** The reference's `Permission`: a tool call waiting for the user's answer. */
export interface Permission {
  id: string;
  type: string;
  pattern?: string | string[];
  sessionID: string;
  messageID: string;
  callID?: string;
  title: string;
  metadata: Record<string, unknown>;
  time: { created: number };
}

// Requests are kept after their reply (with the response) so the history survives; pending = no response.
@Entity('permission')
@Index('IDX_permission_session', ['sessionID'])
@Index('IDX_permission_pending', ['response', 'id'])
export class PermissionEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'session_id', type: 'varchar', length: 64 })
  sessionID: string;

  /** The instance directory the request was published on (disposing it rejects the request). */
  @Column({ type: 'text' })
  directory: string;

  @Column({ type: 'varchar', length: 128 })
  type: string;

  @JsonColumn()
  pattern?: string | string[] | null;

  /** What the call asks about, when it names more than its keys (see PermissionRequestInfo.patterns). */
  @JsonColumn()
  patterns?: string[] | null;

  @Column({ name: 'message_id', type: 'varchar', length: 64 })
  messageID: string;

  @Column({ name: 'call_id', type: 'varchar', length: 128, nullable: true })
  callID: string | null;

  @Column({ type: 'text' })
  title: string;

  @JsonColumn({ nullable: false })
  metadata: Record<string, unknown>;

  @EpochColumn({ name: 'time_created' })
  timeCreated: number;

  @Column({ type: 'varchar', length: 16, nullable: true })
  response: PermissionResponse | null;

  @EpochColumn({ name: 'time_replied', nullable: true })
  timeReplied: number | null;
}

/**
 * The same request as opencode 1.1+ (PermissionNext) names it: `permission.asked` carries it, and
 * `GET /permission` merges it into each `Permission` so both generations of clients read the list.
 * As opencode 1.18.33 sends them: `patterns` = what the call asks about (bash: each sub-command as
 * written, `cd` aside; an edit: its file from the worktree; webfetch: the URL), `always` = what an
 * "always" answer approves (bash: `git status *`; `*` for a request whose type is its only key).
 */
export interface PermissionRequestInfo {
  id: string;
  sessionID: string;
  permission: string;
  patterns: string[];
  metadata: Record<string, unknown>;
  always: string[];
  tool?: { messageID: string; callID: string };
}

/** An "always" answer: later requests of the session whose keys this pattern covers pass at once. */
@Entity('permission_approval')
@Index('IDX_permission_approval_session', ['sessionID', 'type'])
export class PermissionApprovalEntity {
  @PrimaryGeneratedColumn('increment')
  id: number;

  @Column({ name: 'session_id', type: 'varchar', length: 64 })
  sessionID: string;

  @Column({ type: 'varchar', length: 128 })
  type: string;

  @Column({ type: 'text' })
  pattern: string;

  @EpochColumn({ name: 'time_created' })
  timeCreated: number;
}

/** The keys a request asks for, and an "always" answer approves: its pattern(s), else its type. */
export const keysOf = (type: string, pattern: string | string[] | null | undefined): string[] =>
  pattern == null ? [type] : Array.isArray(pattern) ? pattern : [pattern];

export function toPermissionRequest(row: PermissionEntity): PermissionRequestInfo {
  const keys = keysOf(row.type, row.pattern);
  return {
    id: row.id,
    sessionID: row.sessionID,
    permission: row.type,
    patterns: row.patterns ?? keys,
    metadata: row.metadata ?? {},
    always: row.pattern == null ? ['*'] : keys,
    ...(row.callID ? { tool: { messageID: row.messageID, callID: row.callID } } : {}),
  };
}

export function toPermission(row: PermissionEntity): Permission {
  return {
    id: row.id,
    type: row.type,
    ...(row.pattern != null ? { pattern: row.pattern } : {}),
    sessionID: row.sessionID,
    messageID: row.messageID,
    ...(row.callID ? { callID: row.callID } : {}),
    title: row.title,
    metadata: row.metadata ?? {},
    time: { created: row.timeCreated },
  };
}
