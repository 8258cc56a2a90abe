import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochColumn } from '../common/columns';

/** The reference's `UserMessage`. */
export interface UserMessage {
  id: string;
  sessionID: string;
  role: 'user';
  time: { created: number };
  summary?: { title?: string; body?: string; diffs: unknown[] };
  agent: string;
  model: { providerID: string; modelID: string };
  system?: string;
  tools?: Record<string, boolean>;
  variant?: string;
}

/** The reference's `AssistantMessage`. */
export interface AssistantMessage {
  id: string;
  sessionID: string;
  role: 'assistant';
  time: { created: number; completed?: number };
  error?: { name: string; data: Record<string, unknown> };
  parentID: string;
  modelID: string;
  providerID: string;
  mode: string;
  agent: string;
  path: { cwd: string; root: string };
  summary?: boolean;
  cost: number;
  tokens: { total?: number; input: number; output: number; reasoning: number; cache: { read: number; write: number } };
  finish?: string;
}

export type MessageInfo = UserMessage | AssistantMessage;

/**
 * Any of the reference's Part shapes (text, reasoning, file, tool, step-start, step-finish,
 * snapshot, patch, agent, subtask, retry, compaction); the ids and `type` are what storage needs.
 */
export interface Part {
  id: string;
  sessionID: string;
  messageID: string;
  type: string;
  [field: string]: unknown;
}

export interface MessageWithParts {
  info: MessageInfo;
  parts: Part[];
}

// Info and part JSON are stored whole in one row each, so a streamed delta is a single upsert.
@Entity('message')
@Index('IDX_message_session', ['sessionID', 'id'])
export class MessageEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'session_id', type: 'varchar', length: 64 })
  sessionID: string;

  @Column({ type: 'varchar', length: 16 })
  role: string;

  @Column({ type: 'text' })
  data: string;

  @EpochColumn({ name: 'time_created' })
  timeCreated: number;
}

@Entity('part')
@Index('IDX_part_session', ['sessionID', 'messageID', 'id'])
@Index('IDX_part_message', ['messageID', 'id'])
export class PartEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'session_id', type: 'varchar', length: 64 })
  sessionID: string;

  @Column({ name: 'message_id', type: 'varchar', length: 64 })
  messageID: string;

  @Column({ type: 'text' })
  data: string;
}
