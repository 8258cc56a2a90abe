import type { Metadata } from './memory-document.entity';
import { ConversationMessage, mergeTurns, renderTurn } from './conversation';
import type { IngestInput } from './document-ingest.service';

/** The stored row an upsert by customId meets, as read from the database (JSON columns still text). */
export interface StoredForMerge {
  content: string | null;
  raw: string | null;
  metadata: string | null;
  status: string;
}

/** What is sent again under the same customId. */
type IncomingForMerge = Pick<IngestInput, 'content' | 'source' | 'messages' | 'metadata'>;

interface MergedDocument {
  content: string;
  /** The `raw` column to store: the merged conversation, or what was stored. */
  raw: string | null;
  metadata: Metadata;
  contentChanged: boolean;
  /** The document goes through the pipeline again (changed content, or a failed document resent). */
  requeue: boolean;
  /** Extracted memories start over (a file replaces the whole document). */
  resetDreamed: boolean;
}

/**
 * The upsert rule of a customId: conversations merge turn by turn; text that is the stored content
 * resent whole replaces it, a repeat of its end changes nothing, anything else is appended; a file
 * replaces everything. Metadata merges key by key, the new value winning.
 */
export function mergeUpsert(existing: StoredForMerge, input: IncomingForMerge): MergedDocument {
  const fullReplace = input.source === 'file';
  let content = input.content;
  let raw = existing.raw;
  if (input.messages) {
    const stored: unknown = existing.raw ? JSON.parse(existing.raw) : [];
    const messages = mergeTurns(Array.isArray(stored) ? (stored as ConversationMessage[]) : [], input.messages);
    content = messages.map(renderTurn).join('\n');
    raw = JSON.stringify(messages);
  } else if (!fullReplace && existing.content) {
    const old = existing.content;
    if (!content.startsWith(old)) content = old.endsWith(content) ? old : `${old}\n${content}`;
  }
  const metadata = { ...(existing.metadata ? (JSON.parse(existing.metadata) as Metadata) : {}), ...(input.metadata ?? {}) };
  const contentChanged = content !== existing.content || fullReplace;
  return { content, raw, metadata, contentChanged, requeue: contentChanged || existing.status === 'failed', resetDreamed: fullReplace };
}
