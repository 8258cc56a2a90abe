import { Injectable, Logger } from '@nestjs/common';
import { ConflictError, NotFoundError } from '../../common/errors';
import { documentId as newId } from '../../common/ids';
import type { Metadata } from '../documents/memory-document.entity';
import { memoryView } from '../documents/document-views';
import { FullTextIndex } from '../search/full-text-index';
import { matchesExact, matchesFilter } from '../search/metadata-filter';
import { IngestionStore, Query } from '../store';
import { LatestMemoryRow, MemoryEntryRepository } from './memory-entry.repository';
import { containerTagsOf } from '../validation';
import { ExtractedFact, extractFacts, factKey } from './fact-extractor';
import { MemoryEntry } from './memory-entry.entity';
import type { MemoryRelation } from './memory-entry.entity';
import { KnownMemory, MemoryModel, MemoryModelError } from './memory-model';
import type {
  CreateMemoriesBody,
  CreateMemoriesResponse,
  ForgetMemoryBody,
  ForgetMemoryResponse,
  ListMemoriesBody,
  ListMemoriesResponse,
  ProfileBucketsResponse,
  RestoreMemoryBody,
  RestoreMemoryResponse,
  UpdateMemoryBody,
  UpdateMemoryResponse,
} from './dto/memory.dto';
import type { Profile, ProfileBody, ProfilePart, ProfileResponse, SearchMemoriesBody, SearchMemoriesResponse } from '../search/dto/search.dto';

/** The memory a write names, as checked (RestoreMemoryBody is exactly that). */
type MemorySelection = RestoreMemoryBody;

/** Versions shown around a memory in `/v4/memories/list` history. */
const HISTORY_SPAN = 20;
/** Latest memories of a container considered when choosing what the memory model is shown. */
const KNOWN_SCAN = 1000;

/** What dreaming found in a document, and by which extractor (with the reason when the model was not usable). */
interface Extraction {
  facts: ExtractedFact[];
  extractor: 'model' | 'deterministic';
  fallbackReason?: string;
}

const DEFAULT_BUCKET = { key: 'preferences', description: 'Likes, dislikes and preferences' };
const BUCKET_SIZE = 20;
/** A `PATCH /v4/memories` of a version another update has already replaced (it would fork the chain). */
const NEWER_VERSION = 'Memory has a newer version: update the latest one';
const PREFERENCE = /\b(prefers?|preferred|preference|likes?|loves?|enjoys?|favou?rite|hates?|dislikes?|rather|allergic|vegetarian|vegan)\b/i;

/**
 * Buckets are sorted without a model: `preferences` by preference wording, any other key by its
 * words (split at `_`, `:` and `-`) appearing in the fact.
 */
function inBucket(key: string, memory: string): boolean {
  if (key === DEFAULT_BUCKET.key) return PREFERENCE.test(memory);
  const words = key.toLowerCase().split(/[_:-]+/).filter((w) => w.length > 1).map((w) => w.replace(/s$/, ''));
  const text = memory.toLowerCase();
  return words.some((w) => new RegExp(`\\b${w}`).test(text));
}

/** The rows whose source document matches `filter` (all of them without one). */
function documentsMatch(rows: LatestMemoryRow[], filter: Metadata | undefined): LatestMemoryRow[] {
  return filter ? rows.filter((row) => matchesExact(filter, row.doc_metadata ? (JSON.parse(row.doc_metadata) as Metadata) : undefined)) : rows;
}

/** The latest memories of some fact keys, kept current as a document's facts replace them and add new ones. */
class LatestMemories {
  private readonly byId = new Map<string, LatestMemoryRow>();
  /** Each key's memories in the order they were read or added. */
  private readonly byKey = new Map<string, Set<LatestMemoryRow>>();

  constructor(rows: LatestMemoryRow[]) {
    for (const row of rows) this.add(row);
  }

  withKey(key: string): LatestMemoryRow[] {
    return [...(this.byKey.get(key) ?? [])];
  }

  get(id: string): LatestMemoryRow | undefined {
    return this.byId.get(id);
  }

  add(row: LatestMemoryRow): void {
    this.byId.set(row.id, row);
    const rows = this.byKey.get(row.fact_key) ?? new Set();
    this.byKey.set(row.fact_key, rows.add(row));
  }

  remove(id: string): void {
    const row = this.byId.get(id);
    if (!row) return;
    this.byId.delete(id);
    this.byKey.get(row.fact_key)?.delete(row);
  }
}

function significantWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]{4,}/g) ?? []).filter((w) => w !== 'user');
}

/** Memory entries: dreaming (fact extraction and versioning), the profile, and direct memory operations. */
@Injectable()
export class MemoriesService {
  private readonly logger = new Logger('MemoryExtraction');

  constructor(
    private readonly store: IngestionStore,
    private readonly model: MemoryModel,
    private readonly index: FullTextIndex,
    private readonly memories: MemoryEntryRepository,
  ) {}

  /**
   * Store facts for one tag: a repeated fact strengthens the existing one (sourceCount). A fact the
   * memory model related to a memory `updates` it (new version, old one no longer latest), `extends`
   * it or `derives` from it (both stay latest; a derived fact is an inference). A deterministic fact
   * with the same subject as a latest memory updates it; anything else is new.
   * With `filterByMetadata`, only memories whose source documents match may be related to.
   */
  async remember(
    q: Query,
    org: string,
    tag: string,
    facts: ExtractedFact[],
    source: { documentId: string | null; metadata?: Metadata; filterByMetadata?: Metadata; forgetAfter?: number | null; forgetReason?: string | null },
  ): Promise<MemoryEntry[]> {
    if (facts.length === 0) return [];
    const now = Date.now();
    await this.memories.lockTag(q, org, tag);
    // The facts are compared in order, each with the memories as the facts before it left them: the
    // latest ones of their keys are read in one query and kept current here, and the writes go
    // together at the end (a few statements for a document, not four per fact, all under the tag's lock).
    const latest = new LatestMemories(documentsMatch(await this.memories.latestWithKeys(q, org, tag, [...new Set(facts.map((f) => f.key))]), source.filterByMetadata));
    const stored = new Map<string, MemoryEntry>();
    const strengthened: string[] = [];
    const superseded = new Set<string>();
    const sourceMatches = !source.filterByMetadata || (source.documentId !== null && matchesExact(source.filterByMetadata, source.metadata));
    for (const fact of facts) {
      const candidates = latest.withKey(fact.key);
      const same = candidates.find((c) => c.memory.toLowerCase() === fact.memory.toLowerCase());
      if (same) {
        const mine = stored.get(same.id);
        if (mine) mine.sourceCount++;
        else strengthened.push(same.id);
        continue;
      }
      let parent: LatestMemoryRow | undefined;
      let relation: MemoryRelation | null = null;
      if (!fact.link) {
        parent = candidates[0];
        relation = parent ? 'updates' : null;
      } else if (fact.link !== 'new') {
        // The target may have been updated by another document since the model saw it: then the
        // fact starts its own chain rather than forking an old version.
        parent = latest.get(fact.link.memoryId) ?? (superseded.has(fact.link.memoryId) ? undefined : await this.linkTarget(q, org, tag, fact.link.memoryId, source.filterByMetadata));
        relation = parent ? fact.link.relation : null;
      }
      const versioned = relation === 'updates';
      const entry = Object.assign(new MemoryEntry(), {
        id: newId(),
        orgId: org,
        memory: fact.memory,
        containerTag: tag,
        factKey: fact.key,
        documentId: source.documentId,
        version: versioned ? parent!.version + 1 : 1,
        isLatest: true,
        isForgotten: false,
        isStatic: fact.isStatic,
        isInference: relation === 'derives',
        parentMemoryId: parent?.id ?? null,
        rootMemoryId: versioned ? (parent!.root_memory_id ?? parent!.id) : null,
        relation,
        sourceCount: 1,
        metadata: source.metadata ?? {},
        forgetAfter: source.forgetAfter ?? null,
        forgetReason: source.forgetReason ?? null,
        createdAt: now,
        updatedAt: now,
      } satisfies Partial<MemoryEntry>);
      if (versioned) {
        superseded.add(parent!.id);
        latest.remove(parent!.id);
      }
      stored.set(entry.id, entry);
      if (sourceMatches) latest.add({ id: entry.id, memory: entry.memory, version: entry.version, is_static: entry.isStatic, root_memory_id: entry.rootMemoryId, doc_metadata: null, fact_key: entry.factKey });
    }
    // A memory these facts stated and then replaced is stored replaced; the others replaced were latest before.
    const entries = [...stored.values()];
    const replaced = [...superseded].filter((id) => !stored.has(id));
    await this.memories.strengthen(q, strengthened, now);
    await this.memories.supersedeAll(q, replaced, now);
    await this.index.unindexMemories(q, replaced);
    await this.memories.insertAll(q, entries.map((e) => (superseded.has(e.id) ? { ...e, isLatest: false } : e)));
    await this.index.indexMemories(q, entries.filter((e) => !superseded.has(e.id)).map((e) => e.id));
    return entries;
  }

  /** The memory a model-related fact names, when it is a latest memory of the tag (matching the filter). */
  private async linkTarget(q: Query, org: string, tag: string, id: string, filter: Metadata | undefined): Promise<LatestMemoryRow | undefined> {
    const row = await this.memories.latestById(q, org, tag, id);
    return row && documentsMatch([row], filter)[0];
  }

  /**
   * Facts of the part of a document not dreamed yet: by the memory model when one is configured
   * (given the container's most relevant latest memories to relate to), else deterministically.
   * A model failure never fails the document: its facts come from the deterministic extractor and
   * the reason is returned for the record.
   */
  async factsOf(text: string, options: { org: string; conversation: boolean; tag: string; documentId: string; filterByMetadata?: Metadata; filterPrompt?: string }): Promise<Extraction> {
    const deterministic = () => extractFacts(text, { conversation: options.conversation });
    if (!this.model.configured || !text.trim()) return { facts: deterministic(), extractor: 'deterministic' };
    try {
      const known = await this.knownMemories(options.org, options.tag, text, options.filterByMetadata);
      const facts = await this.model.extract(text, { conversation: options.conversation, known, filterPrompt: options.filterPrompt });
      return {
        extractor: 'model',
        facts: facts.map((f) => ({ memory: f.memory, key: factKey(f.memory), isStatic: f.isStatic, link: f.relation && f.relatedTo ? { relation: f.relation, memoryId: f.relatedTo } : 'new' })),
      };
    } catch (error) {
      const reason = error instanceof MemoryModelError ? error.message : `memory model failed: ${(error as Error).message}`;
      this.logger.warn({ msg: 'memory model unusable for this document; deterministic extraction used', documentId: options.documentId, reason });
      return { facts: deterministic(), extractor: 'deterministic', fallbackReason: reason };
    }
  }

  /**
   * Up to `contextSize` latest memories of the tag, those sharing most words with the text first
   * (recency breaks ties): a container with thousands of memories cannot all go into one prompt.
   */
  private async knownMemories(org: string, tag: string, text: string, filterByMetadata?: Metadata): Promise<KnownMemory[]> {
    const size = this.model.contextSize;
    if (size === 0) return [];
    const rows = documentsMatch(await this.memories.recentLatest(org, tag, KNOWN_SCAN), filterByMetadata);
    const words = new Set(significantWords(text));
    return rows
      .map((row, recency) => ({ row, recency, overlap: significantWords(row.memory).filter((w) => words.has(w)).length }))
      .sort((a, b) => b.overlap - a.overlap || a.recency - b.recency)
      .slice(0, size)
      .map(({ row }) => ({ id: row.id, memory: row.memory, isStatic: !!row.is_static }));
  }

  /** Not forgotten, and not past its forgetAfter. */
  isVisible(m: MemoryEntry, now = Date.now()): boolean {
    return !m.isForgotten && (m.forgetAfter === null || m.forgetAfter === undefined || m.forgetAfter > now);
  }

  /**
   * `POST /v4/profile`: static and dynamic facts of a tag (or only the parts `include` names), the
   * requested buckets, and a search when `q` is given.
   */
  async profile(org: string, body: ProfileBody, search: (body: SearchMemoriesBody) => Promise<SearchMemoriesResponse>): Promise<ProfileResponse> {
    const { containerTag: tag, q, filters: filter, include, buckets: bucketKeys } = body;
    const started = Date.now();
    const latest = (await this.memories.latestOfTag(org, tag, 500)).filter(
      (m) => this.isVisible(m) && matchesFilter(filter, m.metadata),
    );
    // Without `include`, the two classic parts; buckets appear when asked for by either parameter.
    const parts = new Set<ProfilePart>(include ?? ['static', 'dynamic', ...(bucketKeys ? (['buckets'] as const) : [])]);
    const profile: Profile = {};
    if (parts.has('static')) profile.static = latest.filter((m) => m.isStatic).slice(0, 50).map((m) => m.memory);
    if (parts.has('dynamic')) profile.dynamic = latest.filter((m) => !m.isStatic).slice(0, 20).map((m) => m.memory);
    if (parts.has('buckets')) {
      profile.buckets = Object.fromEntries(
        (bucketKeys ?? [DEFAULT_BUCKET.key]).map((key) => [key, latest.filter((m) => inBucket(key, m.memory)).slice(0, BUCKET_SIZE).map((m) => m.memory)]),
      );
    }
    if (!q) return { profile };
    const results = await search({ q, containerTag: tag, threshold: body.threshold ?? 0, filters: filter, searchMode: 'memories' });
    return { profile, searchResults: { results: results.results, total: results.total, timing: Date.now() - started } };
  }

  /** `POST /v4/profile/buckets`: the buckets a profile can be sorted into (only the default one: buckets are not configurable here). */
  buckets(): ProfileBucketsResponse {
    return { buckets: [DEFAULT_BUCKET] };
  }

  /** `POST /v4/memories`: facts written directly, skipping the pipeline. */
  async create(org: string, body: CreateMemoriesBody): Promise<CreateMemoriesResponse> {
    const stored = await this.store.transaction(async (q) => {
      const out: MemoryEntry[] = [];
      for (const { content, isStatic, metadata, forgetAfter, forgetReason } of body.memories) {
        const fact = { memory: content, key: factKey(content), isStatic: isStatic ?? false };
        const origin = {
          documentId: null,
          metadata,
          forgetAfter: forgetAfter ? Date.parse(forgetAfter) : null,
          forgetReason: forgetReason ?? null,
        };
        out.push(...(await this.remember(q, org, body.containerTag, [fact], origin)));
      }
      return out;
    });
    return {
      documentId: null,
      memories: stored.map((m) => ({ id: m.id, memory: m.memory, isStatic: m.isStatic, createdAt: new Date(m.createdAt).toISOString(), forgetAfter: m.forgetAfter ? new Date(m.forgetAfter).toISOString() : null, forgetReason: m.forgetReason, metadata: m.metadata ?? {} })),
    };
  }

  async list(org: string, body: ListMemoriesBody): Promise<ListMemoriesResponse> {
    const tags = containerTagsOf(body)!;
    const { filters: filter, limit = 10, page = 1, sort = 'createdAt', order = 'desc' } = body;
    const all = (await this.memories.latestInTags(org, tags, sort, order)).filter(
      (m) => matchesFilter(filter, m.metadata),
    );
    const pageItems = all.slice((page - 1) * limit, page * limit);
    const histories = await Promise.all(pageItems.map((m) => (m.version > 1 ? this.nearbyVersions(m, HISTORY_SPAN) : Promise.resolve([]))));
    return {
      memoryEntries: pageItems.map((m, i) => ({
        ...memoryView(m),
        spaceId: m.containerTag,
        orgId: m.orgId,
        memoryRelations: m.parentMemoryId ? { [m.parentMemoryId]: m.relation ?? 'updates' } : {},
        temporalContext: null,
        history: histories[i].map(memoryView),
        documentIds: m.documentId ? [m.documentId] : [],
      })),
      pagination: { currentPage: page, limit, totalItems: all.length, totalPages: Math.ceil(all.length / limit) },
    };
  }

  private async select(org: string, body: MemorySelection): Promise<MemoryEntry> {
    const found = await this.memories.findInTag(org, body.containerTag, body);
    if (!found) throw new NotFoundError('Memory not found');
    return found;
  }

  /** `PATCH /v4/memories`: a new version; the old one stays with isLatest=false. */
  async update(org: string, body: UpdateMemoryBody): Promise<UpdateMemoryResponse> {
    const { newContent, metadata } = body;
    const old = await this.select(org, body);
    const forgetAfter = body.forgetAfter === null ? null : body.forgetAfter !== undefined ? Date.parse(body.forgetAfter) : old.forgetAfter;
    const now = Date.now();
    const entry = await this.store.transaction(async (q) => {
      await this.memories.lockTag(q, org, body.containerTag);
      // Only the latest version is superseded: one replaced already (before this request, or by a
      // concurrent one since `old` was read) would fork the chain.
      if (!(await this.memories.supersede(q, old.id, now))) throw new ConflictError(NEWER_VERSION);
      await this.index.unindexMemories(q, [old.id]);
      const next = Object.assign(new MemoryEntry(), { ...old, id: newId(), memory: newContent, version: old.version + 1, isLatest: true, isForgotten: false, parentMemoryId: old.id, rootMemoryId: old.rootMemoryId ?? old.id, relation: 'updates', metadata: metadata ?? old.metadata ?? {}, forgetAfter, forgetReason: body.forgetReason ?? old.forgetReason, createdAt: now, updatedAt: now });
      await this.memories.insertAll(q, [next]);
      await this.index.indexMemories(q, [next.id]);
      return next;
    });
    return { id: entry.id, memory: entry.memory, version: entry.version, parentMemoryId: entry.parentMemoryId, rootMemoryId: entry.rootMemoryId, createdAt: new Date(now).toISOString(), forgetAfter: entry.forgetAfter ? new Date(entry.forgetAfter).toISOString() : null, forgetReason: entry.forgetReason ?? null, metadata: entry.metadata ?? {} };
  }

  /** `DELETE /v4/memories`: soft delete (forgotten memories leave search unless asked for). */
  async forget(org: string, body: ForgetMemoryBody): Promise<ForgetMemoryResponse> {
    const { reason } = body;
    const memory = await this.select(org, body);
    if (memory.isForgotten) throw new ConflictError('Memory already forgotten');
    await this.store.transaction(async (q) => {
      await this.memories.forget(q, memory.id, reason ?? memory.forgetReason, Date.now());
      await this.index.unindexMemories(q, [memory.id]);
    });
    return { id: memory.id, forgotten: true };
  }

  /** `POST /v4/memories/restore` (a Keel addition): undo a forget; a latest version returns to search. */
  async restore(org: string, body: RestoreMemoryBody): Promise<RestoreMemoryResponse> {
    const memory = await this.select(org, body);
    if (!memory.isForgotten) throw new ConflictError('Memory is not forgotten');
    await this.store.transaction(async (q) => {
      await this.memories.unforget(q, memory.id, Date.now());
      if (memory.isLatest) await this.index.indexMemories(q, [memory.id]);
    });
    return { id: memory.id, forgotten: false };
  }

  /** The versions around one memory in its chain (chains of a much-updated fact can grow long). */
  async nearbyVersions(m: MemoryEntry, span = 5): Promise<MemoryEntry[]> {
    const chain = await this.memories.chainAround(m.orgId, m.rootMemoryId ?? m.id, m.version, span);
    return chain.filter((v) => v.id !== m.id && Math.abs(v.version - m.version) <= span);
  }
}
