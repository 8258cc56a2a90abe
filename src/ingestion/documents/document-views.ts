import type { MemoryDocument } from './memory-document.entity';
import type { MemoryEntry } from '../memories/memory-entry.entity';

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/** A document as the reference's GET / list bodies show it (ISO timestamps, every declared field present). */
export function documentView(doc: MemoryDocument, options: { content?: boolean; summaryOnly?: boolean; memories?: unknown[] } = {}): Record<string, unknown> {
  const common = {
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
    createdAt: iso(doc.createdAt),
    updatedAt: iso(doc.updatedAt),
  };
  // Lists add why a failed document failed (a Keel addition; absent otherwise).
  if (options.summaryOnly) return { ...common, ...(doc.error ? { error: doc.error } : {}), ...(options.content ? { content: doc.content ?? null } : {}) };
  return {
    ...common,
    content: doc.content ?? null,
    raw: doc.raw ?? null,
    source: doc.source ?? null,
    ogImage: null,
    spatialPoint: null,
    taskType: doc.taskType,
    dreamingStatus: doc.dreamingStatus,
    ...(doc.error ? { error: doc.error } : {}),
    ...(options.memories?.length ? { memories: options.memories } : {}),
  };
}

export function memoryView(m: MemoryEntry): Record<string, unknown> {
  return {
    id: m.id,
    memory: m.memory,
    createdAt: iso(m.createdAt),
    updatedAt: iso(m.updatedAt),
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
