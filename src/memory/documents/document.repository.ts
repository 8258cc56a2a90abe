import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository, SelectQueryBuilder } from 'typeorm';
import { Metadata, MemoryDocument, UNFINISHED } from './memory-document.entity';
import { MemoryChunk } from './memory-chunk.entity';
import { FullTextIndex } from '../search/full-text-index';
import { epochMs, jsonText } from '../../common/columns';
import { IngestionStore, placeholders, Query, slices } from '../store';
import type { StoredForMerge } from './document-merge';

export interface DocumentFile {
  data: Buffer;
  name: string | null;
  mimeType: string | null;
  fileType: string | null;
}

/** Which documents a list or a bulk delete means: container tags (any of them) and a file path or folder. */
interface DocumentScope {
  tags?: string[];
  filepath?: string;
}

interface DocumentListQuery extends DocumentScope {
  includeContent: boolean;
  statuses?: string[];
  types?: string[];
  createdAfter?: number;
  createdBefore?: number;
  sort: 'createdAt' | 'updatedAt';
  order: 'asc' | 'desc';
}

export interface ProcessingRow {
  id: string;
  custom_id: string | null;
  title: string | null;
  type: string;
  status: string;
  created_at: number | string;
  updated_at: number | string;
  metadata: string | null;
  container_tags: string | null;
}

interface StoredForUpsert extends StoredForMerge {
  id: string;
  revision: number;
}

/** What an upsert sets: metadata always, the other fields when given. */
export interface UpsertChanges {
  metadata: Metadata;
  entityContext?: string;
  taskType?: string;
  dreaming?: string;
  filepath?: string;
  title?: string;
  documentDate?: string;
  filterByMetadata?: Metadata;
  containerTags?: string[];
}

interface Requeue {
  content: string;
  raw: string | null;
  source: string;
  /** Extracted memories start over. */
  resetDreamed: boolean;
}

interface UpsertedRow {
  status: string;
  dreaming_status: string;
  custom_id: string | null;
}

const INSERT_COLUMNS = ['id', 'org_id', 'custom_id', 'content', 'raw', 'url', 'title', 'type', 'source', 'task_type', 'dreaming', 'status', 'dreaming_status', 'metadata', 'container_tag', 'container_tags', 'entity_context', 'filter_by_metadata', 'filepath', 'document_date', 'revision', 'dreamed_length', 'lease_until', 'created_at', 'updated_at'];
/**
 * What a search hit shows of its document (a chunk hit also checks its tags and filters on its
 * metadata), read in the repository's own SQL: TypeORM's `find` spent about as long building and
 * mapping it as the statement took.
 */
const HIT_COLUMNS = {
  chunk: 'd.id, d.org_id, d.custom_id, d.title, d.type, d.metadata, d.summary, d.created_at, d.updated_at, d.container_tags, d.status, d.filepath',
  memory: 'd.id, d.org_id, d.title, d.type, d.metadata, d.summary, d.created_at, d.updated_at',
} as const;

interface HitRow {
  id: string;
  org_id: string;
  custom_id?: string | null;
  title: string | null;
  type: string;
  metadata: string | null;
  summary: string | null;
  created_at: number | string;
  updated_at: number | string;
  container_tags?: string | null;
  status?: MemoryDocument['status'];
  filepath?: string | null;
}

/** The row as the entity's columns read it (JSON text parsed, epoch bigints as numbers); columns not selected stay unset. */
function hitDocument(row: HitRow): MemoryDocument {
  const document = Object.assign(new MemoryDocument(), {
    id: row.id,
    orgId: row.org_id,
    title: row.title,
    type: row.type,
    metadata: jsonText.from(row.metadata) as Metadata | undefined,
    summary: row.summary,
    createdAt: epochMs.from(row.created_at) as number,
    updatedAt: epochMs.from(row.updated_at) as number,
  });
  if ('custom_id' in row) Object.assign(document, { customId: row.custom_id, containerTags: jsonText.from(row.container_tags) as string[] | undefined, status: row.status, filepath: row.filepath });
  return document;
}
const SUMMARY_FIELDS = ['d.id', 'd.customId', 'd.createdAt', 'd.updatedAt', 'd.filepath', 'd.metadata', 'd.status', 'd.error', 'd.summary', 'd.title', 'd.type', 'd.url', 'd.containerTags'];

/** The SQL of memory documents: inserts, upsert reads and writes, list queries and the delete cascade. */
@Injectable()
export class DocumentRepository {
  constructor(
    private readonly store: IngestionStore,
    private readonly index: FullTextIndex,
    @InjectRepository(MemoryDocument) private readonly documents: Repository<MemoryDocument>,
    @InjectRepository(MemoryChunk) private readonly chunks: Repository<MemoryChunk>,
  ) {}

  exists(org: string, id: string): Promise<boolean> {
    return this.documents.existsBy({ orgId: org, id });
  }

  async content(org: string, id: string): Promise<string | null> {
    return (await this.documents.findOne({ where: { orgId: org, id }, select: { id: true, content: true } }))?.content ?? null;
  }

  /**
   * The organization's documents among `ids`, with what a memory hit shows of its source. They are read
   * by primary key and their organization checked here: with `org_id = ?` in the query SQLite walks
   * the organization's index (every row of a one-organization server) instead.
   */
  async hitDocuments(org: string, ids: string[]): Promise<MemoryDocument[]> {
    if (!ids.length) return [];
    const rows = await this.store.query<HitRow>(`SELECT ${HIT_COLUMNS.memory} FROM memory_document d WHERE d.id IN (${placeholders(ids)})`, ids);
    return rows.filter((row) => row.org_id === org).map(hitDocument);
  }

  /** By id, then by customId, within the organization (another organization's document is not found). */
  async findByIdOrCustomId(org: string, idOrCustomId: string): Promise<MemoryDocument | null> {
    return (await this.documents.findOneBy({ orgId: org, id: idOrCustomId })) ?? (await this.documents.findOneBy({ orgId: org, customId: idOrCustomId }));
  }

  /** Many rows in one statement per 100 (each row binds 25 values). */
  async insert(q: Query, rows: MemoryDocument[]): Promise<void> {
    const json = (v: unknown) => jsonText.to(v) as string | null;
    const tuple = `(${INSERT_COLUMNS.map(() => '?').join(', ')})`;
    for (const slice of slices(rows, 100)) {
      const values = slice.flatMap((r) => [r.id, r.orgId, r.customId, r.content, json(r.raw), r.url, r.title, r.type, r.source, r.taskType, r.dreaming, r.status, r.dreamingStatus, json(r.metadata), r.containerTag, json(r.containerTags), r.entityContext, json(r.filterByMetadata), r.filepath, r.documentDate, r.revision, r.dreamedLength, r.leaseUntil, r.createdAt, r.updatedAt]);
      await q(`INSERT INTO memory_document (${INSERT_COLUMNS.join(', ')}) VALUES ${slice.map(() => tuple).join(', ')}`, values);
    }
  }

  async saveFile(q: Query, id: string, file: DocumentFile): Promise<void> {
    await q('DELETE FROM memory_document_file WHERE document_id = ?', [id]);
    await q('INSERT INTO memory_document_file (document_id, file_name, mime_type, file_type, data) VALUES (?, ?, ?, ?, ?)', [id, file.name, file.mimeType, file.fileType, file.data.toString('base64')]);
  }

  /** The document a customId names, its row locked for the rest of the transaction. */
  async lockByCustomId(q: Query, org: string, customId: string): Promise<StoredForUpsert | undefined> {
    const [row] = await q<StoredForUpsert>(`SELECT id, content, raw, metadata, status, revision FROM memory_document WHERE org_id = ? AND custom_id = ?${this.store.forUpdate}`, [org, customId]);
    return row;
  }

  async lock(q: Query, id: string): Promise<void> {
    await q(`SELECT id FROM memory_document WHERE id = ?${this.store.forUpdate}`, [id]);
  }

  /** An upsert's changes to the document a customId names; `requeue` sends it through the pipeline again. */
  async saveUpsert(q: Query, id: string, changes: UpsertChanges, now: number, requeue?: Requeue): Promise<UpsertedRow> {
    const optional: [string, unknown][] = [
      ['entity_context', changes.entityContext],
      ['task_type', changes.taskType],
      ['dreaming', changes.dreaming],
      ['filepath', changes.filepath],
      ['title', changes.title],
      ['document_date', changes.documentDate],
      ['filter_by_metadata', changes.filterByMetadata && JSON.stringify(changes.filterByMetadata)],
    ];
    if (changes.containerTags?.length) optional.push(['container_tag', changes.containerTags[0]], ['container_tags', JSON.stringify(changes.containerTags)]);
    const columns: [string, unknown][] = [['metadata', JSON.stringify(changes.metadata)], ['updated_at', now], ...optional.filter(([, value]) => value !== undefined)];
    const expressions: string[] = [];
    if (requeue) {
      columns.push(['lease_until', now], ['content', requeue.content], ['raw', requeue.raw], ['source', requeue.source]);
      expressions.push("status = 'queued'", "dreaming_status = 'dreaming'", 'error = NULL', 'revision = revision + 1', 'extract_attempts = 0', 'claimed_by = NULL');
      if (requeue.resetDreamed) expressions.push('dreamed_length = 0');
    }
    const sets = [...columns.map(([column]) => `${column} = ?`), ...expressions];
    const [row] = await q<UpsertedRow>(`UPDATE memory_document SET ${sets.join(', ')} WHERE id = ? RETURNING status, dreaming_status, custom_id`, [...columns.map(([, value]) => value), id]);
    return row;
  }

  /** Entity properties written as their columns, each through its transformer (JSON columns). */
  async update(q: Query, id: string, changes: Partial<MemoryDocument>): Promise<void> {
    const columns = Object.entries(changes).map(([k, v]) => {
      const column = this.documents.metadata.findColumnWithPropertyName(k)!;
      return [column.databaseName, column.transformer && !Array.isArray(column.transformer) ? (column.transformer.to(v) as unknown) : v] as const;
    });
    await q(`UPDATE memory_document SET ${columns.map(([name]) => `${name} = ?`).join(', ')} WHERE id = ? RETURNING id`, [...columns.map(([, value]) => value), id]);
  }

  /** One page of an organization's documents and how many match; `where` runs on decoded rows (metadata filters), the page cut after it. */
  async listPage(org: string, query: DocumentListQuery, page: number, limit: number, where?: (doc: MemoryDocument) => boolean): Promise<{ docs: MemoryDocument[]; total: number }> {
    const qb = this.scoped(org, query);
    if (!query.includeContent) qb.select(SUMMARY_FIELDS);
    if (query.statuses?.length) qb.andWhere('d.status IN (:...statuses)', { statuses: query.statuses });
    if (query.types?.length) qb.andWhere('d.type IN (:...types)', { types: query.types });
    if (query.createdAfter !== undefined) qb.andWhere('d.createdAt >= :createdAfter', { createdAfter: query.createdAfter });
    if (query.createdBefore !== undefined) qb.andWhere('d.createdAt < :createdBefore', { createdBefore: query.createdBefore });
    qb.orderBy(query.sort === 'createdAt' ? 'd.createdAt' : 'd.updatedAt', query.order === 'asc' ? 'ASC' : 'DESC').addOrderBy('d.id', 'ASC');
    if (where) {
      const all = (await qb.getMany()).filter(where);
      return { docs: all.slice((page - 1) * limit, page * limit), total: all.length };
    }
    // The page and the count side by side, and COUNT(*) rather than getManyAndCount's COUNT(DISTINCT id)
    // (one table, no joins, so no duplicates), which hashed every matching row on PostgreSQL.
    const counted = qb.clone().select('COUNT(*)', 'total').orderBy().getRawOne<{ total: string | number }>();
    const [docs, total] = await Promise.all([qb.offset((page - 1) * limit).limit(limit).getMany(), counted.then((row) => Number(row?.total ?? 0))]);
    return { docs, total };
  }

  async idsInScope(org: string, scope: DocumentScope): Promise<string[]> {
    return (await this.scoped(org, scope).select('d.id').getMany()).map((d) => d.id);
  }

  private scoped(org: string, { tags, filepath }: DocumentScope): SelectQueryBuilder<MemoryDocument> {
    const qb = this.documents.createQueryBuilder('d').where('d.orgId = :org', { org });
    if (tags?.length) qb.andWhere(`(${tags.map((_, i) => `d.container_tags LIKE :tag${i}`).join(' OR ')})`, Object.fromEntries(tags.map((t, i) => [`tag${i}`, `%"${t}"%`])));
    if (filepath) qb.andWhere(filepath.endsWith('/') ? 'd.filepath LIKE :fp' : 'd.filepath = :fp', { fp: filepath.endsWith('/') ? `${filepath}%` : filepath });
    return qb;
  }

  /**
   * The oldest 1000 unfinished documents and their count. Clients poll this while they ingest: both
   * queries read the partial index of unfinished rows (with 20,000 queued documents, scanning the
   * table for them took 100 ms a call), and raw rows skip entity hydration.
   */
  async processing(org: string): Promise<{ rows: ProcessingRow[]; total: number }> {
    // SQLite's planner, without statistics, rates IDX_memory_document_created (the same columns, every
    // row) as good as the partial index and walked every document of the organization: 65–90 ms a
    // call at 33,000 documents, each blocking the event loop. PostgreSQL plans from its statistics.
    const unfinished = this.store.dialect === 'sqlite' ? 'memory_document INDEXED BY "IDX_memory_document_unfinished"' : 'memory_document';
    const [rows, [count]] = await Promise.all([
      this.store.query<ProcessingRow>(
        `SELECT id, custom_id, title, type, status, created_at, updated_at, metadata, container_tags FROM ${unfinished} WHERE org_id = ? AND ${UNFINISHED} ORDER BY created_at ASC LIMIT 1000`,
        [org],
      ),
      this.store.query<{ total: number | string }>(`SELECT COUNT(*) AS total FROM ${unfinished} WHERE org_id = ? AND ${UNFINISHED}`, [org]),
    ]);
    return { rows, total: Number(count.total) };
  }

  /** How many documents each container tag (a document's first) holds. */
  async countByTag(org: string): Promise<Map<string, number>> {
    const rows = await this.store.query<{ tag: string; n: number | string }>(
      'SELECT container_tag AS tag, COUNT(*) AS n FROM memory_document WHERE org_id = ? AND container_tag IS NOT NULL GROUP BY container_tag',
      [org],
    );
    return new Map(rows.map((row) => [row.tag, Number(row.n)]));
  }

  chunksOf(documentId: string): Promise<MemoryChunk[]> {
    return this.chunks.find({ where: { documentId }, order: { position: 'ASC' } });
  }

  /**
   * Chunk hits by id (without their embeddings), each with what its document shows, in one statement:
   * both are read by primary key, and the organization is checked here as in hitDocuments.
   */
  async chunkHits(org: string, ids: number[]): Promise<{ chunk: MemoryChunk; doc: MemoryDocument }[]> {
    if (!ids.length) return [];
    const rows = await this.store.query<HitRow & { chunk_id: number | string; document_id: string; position: number; content: string }>(
      `SELECT c.id AS chunk_id, c.document_id, c.position, c.content, ${HIT_COLUMNS.chunk} FROM memory_chunk c JOIN memory_document d ON d.id = c.document_id WHERE c.id IN (${placeholders(ids)})`,
      ids,
    );
    const docs = new Map<string, MemoryDocument>();
    return rows
      .filter((row) => row.org_id === org)
      .map((row) => {
        let doc = docs.get(row.id);
        if (!doc) docs.set(row.id, (doc = hitDocument(row)));
        return { chunk: Object.assign(new MemoryChunk(), { id: Number(row.chunk_id), documentId: row.document_id, position: row.position, content: row.content }), doc };
      });
  }

  chunksAt(documentId: string, positions: number[]): Promise<MemoryChunk[]> {
    return this.chunks.findBy({ documentId, position: In(positions) });
  }

  /** The stored vectors of the chunks that have one. */
  async embeddings(ids: number[]): Promise<Map<number, number[]>> {
    const stored = await this.chunks.find({ where: { id: In(ids) }, select: { id: true, embedding: true } });
    return new Map(stored.filter((c) => c.embedding).map((c) => [c.id, JSON.parse(c.embedding!) as number[]]));
  }

  /** Documents with their chunks, memories and files, in one transaction. */
  async deleteCascade(ids: string[]): Promise<void> {
    await this.store.transaction(async (q) => {
      for (const id of ids) {
        // Lock the document row first, in the same order as the pipeline's writes, so the two never deadlock.
        await this.lock(q, id);
        await this.index.deleteChunks(q, id);
        await this.index.deleteMemoriesOf(q, id);
        await q('DELETE FROM memory_document_file WHERE document_id = ?', [id]);
        await q('DELETE FROM memory_document WHERE id = ? RETURNING id', [id]);
      }
    });
  }
}
