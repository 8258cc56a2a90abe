import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Between, In, Repository } from 'typeorm';
import { ConflictError, NotFoundError } from '../../common/errors';
import { documentId as newId } from '../../common/ids';
import type { Metadata } from '../documents/memory-document.entity';
import { memoryView } from '../documents/document-views';
import { FullTextIndex } from '../search/full-text-index';
import { matchesExact, matchesFilter, parseFilter } from '../search/metadata-filter';
import { IngestionStore, Query } from '../store';
import { Checker, LIMITS, objectBody } from '../validation';
import { ExtractedFact, extractFacts, factKey } from './fact-extractor';
import { MemoryEntry } from './memory-entry.entity';

/** Versions shown around a memory in `/v4/memories/list` history. */
const HISTORY_SPAN = 20;

interface MemoryRow {
  id: string;
  memory: string;
  version: number;
  root_memory_id: string | null;
  document_id: string | null;
  doc_metadata?: string | null;
}

/** Memory entries: dreaming (fact extraction and versioning), the profile, and direct memory operations. */
@Injectable()
export class MemoriesService {
  constructor(
    private readonly store: IngestionStore,
    private readonly index: FullTextIndex,
    @InjectRepository(MemoryEntry) private readonly memories: Repository<MemoryEntry>,
  ) {}

  /**
   * Store facts for one tag: a repeated fact strengthens the existing one (sourceCount), a fact with
   * the same subject updates it (new version, old one no longer latest), anything else is new.
   * With `filterByMetadata`, only memories whose source documents match may be updated.
   */
  async remember(
    q: Query,
    tag: string,
    facts: ExtractedFact[],
    source: { documentId: string | null; metadata?: Metadata; filterByMetadata?: Metadata; forgetAfter?: number | null; forgetReason?: string | null },
  ): Promise<MemoryEntry[]> {
    const now = Date.now();
    const stored: MemoryEntry[] = [];
    for (const fact of facts) {
      const candidates = (
        await q<MemoryRow>(
          `SELECT m.id, m.memory, m.version, m.root_memory_id, m.document_id, d.metadata AS doc_metadata FROM memory_entry m
           LEFT JOIN memory_document d ON d.id = m.document_id
           WHERE m.container_tag = ? AND m.fact_key = ? AND m.is_latest = ? AND m.is_forgotten = ?`,
          [tag, fact.key, true, false],
        )
      ).filter((row) => !source.filterByMetadata || matchesExact(source.filterByMetadata, row.doc_metadata ? (JSON.parse(row.doc_metadata) as Metadata) : undefined));
      const same = candidates.find((c) => c.memory.toLowerCase() === fact.memory.toLowerCase());
      if (same) {
        await q('UPDATE memory_entry SET source_count = source_count + 1, updated_at = ? WHERE id = ? RETURNING id', [now, same.id]);
        continue;
      }
      const parent = candidates[0];
      const entry = Object.assign(new MemoryEntry(), {
        id: newId(),
        memory: fact.memory,
        containerTag: tag,
        factKey: fact.key,
        documentId: source.documentId,
        version: parent ? parent.version + 1 : 1,
        isLatest: true,
        isForgotten: false,
        isStatic: fact.isStatic,
        isInference: false,
        parentMemoryId: parent?.id ?? null,
        rootMemoryId: parent ? (parent.root_memory_id ?? parent.id) : null,
        relation: parent ? 'updates' : null,
        sourceCount: 1,
        metadata: source.metadata ?? {},
        forgetAfter: source.forgetAfter ?? null,
        forgetReason: source.forgetReason ?? null,
        createdAt: now,
        updatedAt: now,
      } satisfies Partial<MemoryEntry>);
      if (parent) {
        await q('UPDATE memory_entry SET is_latest = ?, updated_at = ? WHERE id = ? RETURNING id', [false, now, parent.id]);
        await this.index.unindexMemory(q, parent.id);
      }
      await q(
        `INSERT INTO memory_entry (id, memory, container_tag, fact_key, document_id, version, is_latest, is_forgotten, is_static, is_inference,
         parent_memory_id, root_memory_id, relation, source_count, metadata, forget_after, forget_reason, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [entry.id, entry.memory, tag, entry.factKey, entry.documentId, entry.version, true, false, entry.isStatic, false, entry.parentMemoryId, entry.rootMemoryId, entry.relation, 1, JSON.stringify(entry.metadata), entry.forgetAfter, entry.forgetReason, now, now],
      );
      await this.index.indexMemory(q, entry.id);
      stored.push(entry);
    }
    return stored;
  }

  /** Facts of the part of a document not dreamed yet. */
  factsOf(text: string, conversation: boolean): ExtractedFact[] {
    return extractFacts(text, { conversation });
  }

  private visible(m: MemoryEntry, now = Date.now()): boolean {
    return !m.isForgotten && (m.forgetAfter === null || m.forgetAfter === undefined || m.forgetAfter > now);
  }

  /** `POST /v4/profile`: static and dynamic facts of a tag, and a search when `q` is given. */
  async profile(raw: unknown, search: (body: Record<string, unknown>) => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const body = objectBody(raw);
    const check = new Checker();
    const tag = check.tag(body.containerTag, ['containerTag']);
    if (!tag) check.fail(['containerTag'], 'is required');
    const q = check.string(body.q, ['q'], { min: 1 });
    check.number(body.threshold, ['threshold'], { min: 0, max: 1 });
    const filter = parseFilter(body.filters, check, ['filters']);
    check.throwIfAny(body);
    const started = Date.now();
    const latest = (await this.memories.find({ where: { containerTag: tag!, isLatest: true, isForgotten: false }, order: { updatedAt: 'DESC' }, take: 500 })).filter(
      (m) => this.visible(m) && matchesFilter(filter, m.metadata),
    );
    const profile = {
      static: latest.filter((m) => m.isStatic).slice(0, 50).map((m) => m.memory),
      dynamic: latest.filter((m) => !m.isStatic).slice(0, 20).map((m) => m.memory),
    };
    if (!q) return { profile };
    const results = await search({ q, containerTag: tag, threshold: body.threshold ?? 0, filters: body.filters, searchMode: 'memories' });
    return { profile, searchResults: { results: results.results, total: results.total, timing: Date.now() - started } };
  }

  /** `POST /v4/memories`: facts written directly, skipping the pipeline. */
  async create(raw: unknown): Promise<Record<string, unknown>> {
    const body = objectBody(raw);
    const check = new Checker();
    const tag = check.tag(body.containerTag, ['containerTag']);
    if (!tag) check.fail(['containerTag'], 'is required');
    if (!Array.isArray(body.memories) || body.memories.length < 1 || body.memories.length > 100) check.fail(['memories'], 'must hold 1 to 100 memories');
    const items = (Array.isArray(body.memories) ? body.memories : []).map((m: unknown, i) => {
      const item = (m && typeof m === 'object' ? m : {}) as Record<string, unknown>;
      const content = check.string(item.content, ['memories', i, 'content'], { required: true, min: 1, max: LIMITS.memoryContentLength }) ?? '';
      const forgetAfter = check.string(item.forgetAfter, ['memories', i, 'forgetAfter']);
      if (forgetAfter && Number.isNaN(Date.parse(forgetAfter))) check.fail(['memories', i, 'forgetAfter'], 'must be an ISO-8601 date');
      return {
        fact: { memory: content, key: factKey(content), isStatic: check.boolean(item.isStatic, ['memories', i, 'isStatic']) ?? false },
        metadata: check.metadata(item.metadata, ['memories', i, 'metadata']),
        forgetAfter: forgetAfter ? Date.parse(forgetAfter) : null,
        forgetReason: check.string(item.forgetReason, ['memories', i, 'forgetReason']) ?? null,
      };
    });
    check.throwIfAny(body);
    const stored = await this.store.transaction(async (q) => {
      const out: MemoryEntry[] = [];
      for (const item of items) out.push(...(await this.remember(q, tag!, [item.fact], { documentId: null, metadata: item.metadata, forgetAfter: item.forgetAfter, forgetReason: item.forgetReason })));
      return out;
    });
    return {
      documentId: null,
      memories: stored.map((m) => ({ id: m.id, memory: m.memory, isStatic: m.isStatic, createdAt: new Date(m.createdAt).toISOString(), forgetAfter: m.forgetAfter ? new Date(m.forgetAfter).toISOString() : null, forgetReason: m.forgetReason, metadata: m.metadata ?? {} })),
    };
  }

  async list(raw: unknown): Promise<Record<string, unknown>> {
    const body = objectBody(raw);
    const check = new Checker();
    const tags = check.tags(body);
    if (!tags?.length) check.fail(['containerTags'], 'is required');
    const filter = parseFilter(body.filters, check, ['filters']);
    const limit = check.number(body.limit, ['limit'], { min: 1, max: 1100, integer: true }) ?? 10;
    const page = check.number(body.page, ['page'], { min: 1, integer: true }) ?? 1;
    const sort = check.oneOf(body.sort, ['sort'], ['createdAt', 'updatedAt'] as const) ?? 'createdAt';
    const order = check.oneOf(body.order, ['order'], ['asc', 'desc'] as const) ?? 'desc';
    check.throwIfAny(body);
    const all = (await this.memories.find({ where: { containerTag: In(tags!), isLatest: true }, order: { [sort]: order.toUpperCase() as 'ASC' | 'DESC', id: 'ASC' } })).filter(
      (m) => matchesFilter(filter, m.metadata),
    );
    const pageItems = all.slice((page - 1) * limit, page * limit);
    const histories = await Promise.all(pageItems.map((m) => (m.version > 1 ? this.nearbyVersions(m, HISTORY_SPAN) : Promise.resolve([]))));
    return {
      memoryEntries: pageItems.map((m, i) => ({
        ...memoryView(m),
        spaceId: m.containerTag,
        orgId: 'local',
        memoryRelations: m.parentMemoryId ? { [m.parentMemoryId]: m.relation ?? 'updates' } : {},
        temporalContext: null,
        history: histories[i].map(memoryView),
        documentIds: m.documentId ? [m.documentId] : [],
      })),
      pagination: { currentPage: page, limit, totalItems: all.length, totalPages: Math.ceil(all.length / limit) },
    };
  }

  private async select(body: Record<string, unknown>, check: Checker): Promise<MemoryEntry> {
    const tag = check.tag(body.containerTag, ['containerTag']);
    if (!tag) check.fail(['containerTag'], 'is required');
    const id = check.string(body.id, ['id'], { min: 1 });
    const content = check.string(body.content, ['content'], { min: 1 });
    if (!id && !content) check.fail(['id'], 'id or content is required');
    check.throwIfAny(body);
    const found = id
      ? await this.memories.findOneBy({ id, containerTag: tag! })
      : await this.memories.findOneBy({ memory: content!, containerTag: tag!, isLatest: true });
    if (!found) throw new NotFoundError('Memory not found');
    return found;
  }

  /** `PATCH /v4/memories`: a new version; the old one stays with isLatest=false. */
  async update(raw: unknown): Promise<Record<string, unknown>> {
    const body = objectBody(raw);
    const check = new Checker();
    const newContent = check.string(body.newContent, ['newContent'], { required: true, min: 1, max: LIMITS.memoryContentLength });
    const metadata = check.metadata(body.metadata, ['metadata']);
    const old = await this.select(body, check);
    const forgetAfter = body.forgetAfter === null ? null : typeof body.forgetAfter === 'string' ? Date.parse(body.forgetAfter) : old.forgetAfter;
    const now = Date.now();
    const entry = await this.store.transaction(async (q) => {
      await q('UPDATE memory_entry SET is_latest = ?, updated_at = ? WHERE id = ? RETURNING id', [false, now, old.id]);
      await this.index.unindexMemory(q, old.id);
      const next = Object.assign(new MemoryEntry(), { ...old, id: newId(), memory: newContent!, version: old.version + 1, isLatest: true, parentMemoryId: old.id, rootMemoryId: old.rootMemoryId ?? old.id, relation: 'updates', metadata: metadata ?? old.metadata, forgetAfter: Number.isNaN(forgetAfter) ? null : forgetAfter, forgetReason: (body.forgetReason as string | undefined) ?? old.forgetReason, createdAt: now, updatedAt: now });
      await q(
        `INSERT INTO memory_entry (id, memory, container_tag, fact_key, document_id, version, is_latest, is_forgotten, is_static, is_inference,
         parent_memory_id, root_memory_id, relation, source_count, metadata, forget_after, forget_reason, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [next.id, next.memory, next.containerTag, old.factKey, next.documentId, next.version, true, false, next.isStatic, next.isInference, next.parentMemoryId, next.rootMemoryId, 'updates', next.sourceCount, JSON.stringify(next.metadata ?? {}), next.forgetAfter, next.forgetReason, now, now],
      );
      await this.index.indexMemory(q, next.id);
      return next;
    });
    return { id: entry.id, memory: entry.memory, version: entry.version, parentMemoryId: entry.parentMemoryId, rootMemoryId: entry.rootMemoryId, createdAt: new Date(now).toISOString(), forgetAfter: entry.forgetAfter ? new Date(entry.forgetAfter).toISOString() : null, forgetReason: entry.forgetReason ?? null, metadata: entry.metadata ?? {} };
  }

  /** `DELETE /v4/memories`: soft delete (forgotten memories leave search unless asked for). */
  async forget(raw: unknown): Promise<Record<string, unknown>> {
    const body = objectBody(raw);
    const check = new Checker();
    const reason = check.string(body.reason, ['reason']);
    const memory = await this.select(body, check);
    if (memory.isForgotten) throw new ConflictError('Memory already forgotten');
    await this.store.transaction(async (q) => {
      await q('UPDATE memory_entry SET is_forgotten = ?, forget_reason = ?, updated_at = ? WHERE id = ? RETURNING id', [true, reason ?? memory.forgetReason, Date.now(), memory.id]);
      await this.index.unindexMemory(q, memory.id);
    });
    return { id: memory.id, forgotten: true };
  }

  async byIds(ids: string[]): Promise<MemoryEntry[]> {
    return ids.length ? this.memories.findBy({ id: In(ids) }) : [];
  }

  /** The versions around one memory in its chain (chains of a much-updated fact can grow long). */
  async nearbyVersions(m: MemoryEntry, span = 5): Promise<MemoryEntry[]> {
    const root = m.rootMemoryId ?? m.id;
    const chain = await this.memories.find({ where: [{ rootMemoryId: root, version: Between(m.version - span, m.version + span) }, { id: root }], order: { version: 'ASC' } });
    return chain.filter((v) => v.id !== m.id && Math.abs(v.version - m.version) <= span);
  }

  isVisible(m: MemoryEntry): boolean {
    return this.visible(m);
  }
}
