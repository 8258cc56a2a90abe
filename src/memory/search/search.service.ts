import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../../common/errors';
import { MemoryChunk } from '../documents/memory-chunk.entity';
import { DocumentRepository } from '../documents/document.repository';
import { isoTime } from '../documents/document-views';
import { MemoryDocument } from '../documents/memory-document.entity';
import { MemoryEntry } from '../memories/memory-entry.entity';
import { MemoriesService } from '../memories/memories.service';
import { MemoryEntryRepository } from '../memories/memory-entry.repository';
import { containerTagsOf } from '../validation';
import { FullTextIndex, IndexHit, queryTerms, termCoverage } from './full-text-index';
import { cosine, EmbeddingProvider } from '../pipeline/embedding-provider';
import { FilterExpression, matchesFilter } from './metadata-filter';
import { VectorIndex } from './vector-index';
import type { DocumentHit, MemoryHit, SearchDocumentsBody, SearchDocumentsResponse, SearchInclude, SearchMemoriesBody, SearchMemoriesResponse } from './dto/search.dto';

interface ScoredChunk {
  chunk: MemoryChunk;
  doc: MemoryDocument;
  score: number;
}

/**
 * Similarity in 0..1 from full-text hits: the share of query terms a hit contains, blended with
 * its rank relative to the best hit (BM25 / ts_rank are unbounded and not comparable across queries).
 */
function similarity(terms: string[], text: string, rank: number, best: number): number {
  const relative = best > 0 ? Math.max(0, rank) / best : 1;
  return Math.round((0.3 + 0.5 * termCoverage(terms, text) + 0.2 * relative) * 1000) / 1000;
}

/** A hit's source document as `/v4/search` shows it (with its summary when `include.summaries`). */
function documentRef(doc: MemoryDocument, include: SearchInclude): Record<string, unknown> {
  const { id, title, type, metadata, summary, createdAt, updatedAt } = doc;
  const shown = { id, title: title ?? null, type, metadata: metadata ?? {}, ...(include.summaries ? { summary } : {}) };
  return { ...shown, createdAt: isoTime(createdAt), updatedAt: isoTime(updatedAt) };
}

/** Retrieval over the full-text indexes and, with an embedding provider, the vector index; never waits for the pipeline. */
@Injectable()
export class SearchService {
  constructor(
    private readonly index: FullTextIndex,
    private readonly memories: MemoriesService,
    private readonly entries: MemoryEntryRepository,
    private readonly embeddings: EmbeddingProvider,
    private readonly vectors: VectorIndex,
    private readonly documents: DocumentRepository,
  ) {}

  /** The query's vector, when an embedding provider is configured and answers (search degrades to full text otherwise). */
  private async queryVector(q: string): Promise<number[] | undefined> {
    if (!this.embeddings.configured) return undefined;
    try {
      return (await this.embeddings.embed([q]))[0];
    } catch {
      return undefined;
    }
  }

  private async scoredChunks(org: string, q: string, tags: string[] | undefined, limit: number, filter: FilterExpression | undefined, documentId?: string): Promise<ScoredChunk[]> {
    const terms = queryTerms(q);
    const pool = Math.min(500, limit * (filter ? 20 : 3));
    const [hits, vector] = await Promise.all([this.index.searchChunks(org, terms, tags, pool, 1, documentId), this.queryVector(q)]);
    const ranks = new Map(hits.map((h) => [Number(h.id), Number(h.rank)]));
    const ids = new Set(ranks.keys());
    if (vector && !documentId) for (const hit of await this.vectors.nearest(vector, tags, pool, org)) ids.add(hit.id);
    if (!ids.size) return [];
    const [found, stored] = await Promise.all([
      // Only the organization's documents: a chunk of another one is dropped here whatever found it.
      this.documents.chunkHits(org, [...ids]),
      vector ? this.documents.embeddings([...ids]) : Promise.resolve(undefined),
    ]);
    const best = Math.max(0, ...ranks.values());
    const out: ScoredChunk[] = [];
    for (const { chunk, doc } of found) {
      if ((documentId && chunk.documentId !== documentId) || !matchesFilter(filter, doc.metadata)) continue;
      // The vector index learns of a document's new tags only when it is reprocessed: tags are checked here.
      if (tags?.length && !doc.containerTags?.some((t) => tags.includes(t))) continue;
      const rank = ranks.get(chunk.id);
      const lexical = rank === undefined ? 0 : similarity(terms, chunk.content, rank, best);
      // Hybrid: lexical and vector similarity weigh the same when both exist. The cosine is the stored
      // vector's: exact, whichever engine found the chunk (usearch compares int8-quantized copies).
      const embedding = stored?.get(chunk.id);
      const cos = embedding && cosine(vector!, embedding);
      const score = cos === undefined ? lexical : Math.round((0.5 * lexical + 0.5 * Math.max(0, cos)) * 1000) / 1000;
      out.push({ chunk, doc, score });
    }
    return out.sort((a, b) => b.score - a.score);
  }

  /** `POST /v3/search`: chunks grouped by document. */
  async documentsSearch(org: string, body: SearchDocumentsBody): Promise<SearchDocumentsResponse> {
    const started = Date.now();
    const { q, docId, filters: filter, chunkThreshold = 0, limit = 10 } = body;
    const { includeFullDocs = false, includeSummary = false, onlyMatchingChunks = true } = body;
    const tags = containerTagsOf(body);
    if (docId && !(await this.documents.exists(org, docId))) throw new NotFoundError('Document not found');
    const scored = (await this.scoredChunks(org, q, tags, limit * 2, filter, docId)).filter((s) => s.score >= chunkThreshold);
    const groups = new Map<string, ScoredChunk[]>();
    for (const s of scored) groups.set(s.doc.id, [...(groups.get(s.doc.id) ?? []), s]);
    const results: DocumentHit[] = [];
    for (const [id, group] of [...groups].slice(0, limit)) {
      const doc = group[0].doc;
      let chunks = group.map((s) => ({ content: s.chunk.content, isRelevant: true, score: s.score, position: s.chunk.position }));
      if (!onlyMatchingChunks) {
        const positions = new Set(group.flatMap((s) => [s.chunk.position - 1, s.chunk.position + 1]));
        const neighbours = await this.documents.chunksAt(id, [...positions]);
        const seen = new Set(group.map((s) => s.chunk.position));
        chunks = [...chunks, ...neighbours.filter((n) => !seen.has(n.position)).map((n) => ({ content: n.content, isRelevant: false, score: 0, position: n.position }))].sort((a, b) => a.position - b.position);
      }
      const content = includeFullDocs ? await this.documents.content(org, id) : null;
      results.push({
        documentId: id,
        title: doc.title ?? null,
        type: doc.type,
        metadata: doc.metadata ?? {},
        score: group[0].score,
        createdAt: isoTime(doc.createdAt),
        updatedAt: isoTime(doc.updatedAt),
        ...(includeSummary ? { summary: doc.summary ?? null } : {}),
        ...(includeFullDocs ? { content } : {}),
        chunks: chunks.map(({ content, isRelevant, score }) => ({ content, isRelevant, score })),
      });
    }
    return { results, timing: Date.now() - started, total: results.length };
  }

  /** `POST /v4/search`: memories, chunks (documents) or both (hybrid). */
  async memorySearch(org: string, body: SearchMemoriesBody): Promise<SearchMemoriesResponse> {
    const started = Date.now();
    const { q, filters: filter, searchMode: mode = 'memories', threshold = 0.6, limit = 10, include = {} } = body;
    const tags = containerTagsOf(body);
    // Memories and chunks are independent lookups: on PostgreSQL they run on two connections at once.
    const [memories, scored] = await Promise.all([
      mode !== 'documents' ? this.memoryResults(org, q, tags, limit, threshold, filter, include) : Promise.resolve([]),
      mode !== 'memories' || include.chunks === true ? this.scoredChunks(org, q, tags, limit, filter) : Promise.resolve(undefined),
    ]);
    const results: MemoryHit[] = [...memories];
    if (scored) {
      const chunks = scored.filter((s) => s.score >= threshold);
      results.push(
        ...chunks.map((s) => ({
          id: String(s.chunk.id),
          chunk: s.chunk.content,
          similarity: s.score,
          metadata: s.doc.metadata ?? {},
          updatedAt: isoTime(s.doc.updatedAt),
          filepath: s.doc.filepath ?? null,
          documents: [documentRef(s.doc, include)],
        })),
      );
    }
    const top = results.sort((a, b) => b.similarity - a.similarity).slice(0, limit);
    return { results: top, timing: Date.now() - started, total: top.length };
  }

  private async memoryResults(org: string, q: string, tags: string[] | undefined, limit: number, threshold: number, filter: FilterExpression | undefined, include: SearchInclude): Promise<MemoryHit[]> {
    const terms = queryTerms(q);
    const hits: IndexHit[] = await this.index.searchMemories(org, terms, tags, Math.min(500, limit * (filter ? 20 : 3)), 1, include.forgottenMemories === true);
    if (!hits.length) return [];
    const entries = new Map((await this.entries.byIds(org, hits.map((h) => String(h.id)))).map((m) => [m.id, m]));
    const best = Math.max(...hits.map((h) => Number(h.rank)));
    const scored: { m: MemoryEntry; score: number }[] = [];
    for (const hit of hits) {
      const m = entries.get(String(hit.id));
      if (!m || !m.isLatest || (!include.forgottenMemories && !this.memories.isVisible(m)) || !matchesFilter(filter, m.metadata)) continue;
      const score = similarity(terms, m.memory, Number(hit.rank), best) * (m.isInference ? 0.8 : 1);
      if (score >= threshold) scored.push({ m, score: Math.round(score * 1000) / 1000 });
    }
    scored.sort((a, b) => b.score - a.score);
    const top = scored.slice(0, limit);
    const chains = await Promise.all(top.map((s) => (s.m.version > 1 ? this.memories.nearbyVersions(s.m) : Promise.resolve([]))));
    const docIds = [...new Set(top.map((s) => s.m.documentId).filter((d): d is string => !!d))];
    const docs = include.documents && docIds.length ? new Map((await this.documents.hitDocuments(org, docIds)).map((d) => [d.id, d])) : undefined;
    return top.map(({ m, score }, i) => {
      const chain = chains[i];
      const doc = m.documentId ? docs?.get(m.documentId) : undefined;
      return {
        id: m.id,
        memory: m.memory,
        similarity: score,
        metadata: m.metadata ?? {},
        updatedAt: isoTime(m.updatedAt),
        version: m.version,
        isAggregated: false,
        context: {
          parents: chain.filter((v) => v.version < m.version).reverse().map((v) => ({ relation: m.relation ?? 'updates', version: v.version - m.version, memory: v.memory, metadata: v.metadata ?? {}, updatedAt: isoTime(v.updatedAt) })),
          children: chain.filter((v) => v.version > m.version).map((v) => ({ relation: v.relation ?? 'updates', version: v.version - m.version, memory: v.memory, metadata: v.metadata ?? {}, updatedAt: isoTime(v.updatedAt) })),
        },
        ...(doc ? { documents: [documentRef(doc, include)] } : {}),
      };
    });
  }
}
