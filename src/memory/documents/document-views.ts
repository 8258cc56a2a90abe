import type { MemoryDocument } from './memory-document.entity';
import type { MemoryChunk } from './memory-chunk.entity';
import type { MemoryEntry } from '../memories/memory-entry.entity';
import type { MemoryView } from '../memories/dto/memory.dto';
import type { DocumentChunk, DocumentDetail, DocumentSummary, ProcessingDocument } from './dto/document.dto';
import type { ProcessingRow } from './document.repository';

/** An optional epoch-ms timestamp as an ISO string (null when unset). */
export const iso = (ms: number | string | null | undefined) =>
  ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
/** Timestamps a stored row always has (epoch ms, or a bigint column's text). */
export const isoTime = (ms: number | string) => new Date(Number(ms)).toISOString();

function commonView(doc: MemoryDocument) {
  return {
    id: doc.id,
    customId: doc.customId ?? null,
    connectionId: null,
    title: doc.title ?? null,
    summary: doc.summary ?? null,
    type: doc.type,
    status: doc.status,
    metadata: doc.metadata ?? {},
    filepath: doc.filepath ?? null,
    url: doc.url ?? null,
    containerTags: doc.containerTags ?? [],
    createdAt: isoTime(doc.createdAt),
    updatedAt: isoTime(doc.updatedAt),
  };
}

/** A document as the reference's list bodies show it; lists add why a failed document failed (a Keel addition; absent otherwise). */
export function documentSummaryView(doc: MemoryDocument, includeContent: boolean): DocumentSummary {
  return { ...commonView(doc), ...(doc.error ? { error: doc.error } : {}), ...(includeContent ? { content: doc.content ?? null } : {}) };
}

/** A document as the reference's GET body shows it (ISO timestamps, every declared field present). */
export function documentView(doc: MemoryDocument, memories: MemoryView[]): DocumentDetail {
  return {
    ...commonView(doc),
    content: doc.content ?? null,
    raw: doc.raw ?? null,
    source: doc.source ?? null,
    ogImage: null,
    spatialPoint: null,
    taskType: doc.taskType,
    dreamingStatus: doc.dreamingStatus,
    ...(doc.error ? { error: doc.error } : {}),
    ...(memories.length ? { memories } : {}),
  };
}

export function processingView(row: ProcessingRow): ProcessingDocument {
  const json = <T>(text: string | null, fallback: T): T => (text ? (JSON.parse(text) as T) : fallback);
  return {
    id: row.id,
    customId: row.custom_id,
    title: row.title,
    type: row.type,
    status: row.status,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    metadata: json(row.metadata, {}),
    containerTags: json(row.container_tags, []),
  };
}

export function chunkView(c: MemoryChunk): DocumentChunk {
  return { id: String(c.id), position: c.position, index: c.position, content: c.content, type: 'text', metadata: { startOffset: c.startOffset, endOffset: c.endOffset }, createdAt: isoTime(c.createdAt) };
}

export function memoryView(m: MemoryEntry): MemoryView {
  return {
    id: m.id,
    memory: m.memory,
    createdAt: isoTime(m.createdAt),
    updatedAt: isoTime(m.updatedAt),
    isLatest: m.isLatest,
    isForgotten: m.isForgotten,
    isStatic: m.isStatic,
    isInference: m.isInference,
    version: m.version,
    sourceCount: m.sourceCount,
    metadata: m.metadata ?? {},
    parentMemoryId: m.parentMemoryId ?? null,
    rootMemoryId: m.rootMemoryId ?? null,
    // Keel addition: how this version relates to its parent (updates, extends or derives).
    relation: m.parentMemoryId ? (m.relation ?? 'updates') : null,
    forgetAfter: iso(m.forgetAfter),
    forgetReason: m.forgetReason ?? null,
  };
}
