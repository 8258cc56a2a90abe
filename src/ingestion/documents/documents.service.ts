import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { BadRequestError, NotFoundError, PayloadTooLargeError } from '../../common/errors';
import { documentId } from '../../common/ids';
import { DOCUMENT_STATUSES, Metadata, MemoryDocument, UNFINISHED } from './memory-document.entity';
import { MemoryChunk } from './memory-chunk.entity';
import { MemoryEntry } from '../memories/memory-entry.entity';
import { ConversationMessage, mergeTurns, renderTurn, validateMessages } from './conversation';
import { isUrl } from '../pipeline/extraction';
import { StatusPublisher } from '../pipeline/status-publisher';
import { FullTextIndex } from '../search/full-text-index';
import { matchesFilter, parseFilter } from '../search/metadata-filter';
import { KeyedMutex } from '../../common/keyed-mutex';
import { IngestionStore, Query } from '../store';
import { Checker, LIMITS, objectBody } from '../validation';
import { documentView, memoryView } from './document-views';

export const DEFAULT_TAG = 'sm_project_default';
const TASK_TYPES = ['memory', 'superrag'] as const;
const DREAMING = ['dynamic', 'instant'] as const;

/** One document to add or upsert, after validation. */
export interface IngestInput {
  content: string;
  source: 'text' | 'url' | 'file' | 'conversation';
  customId?: string;
  containerTags?: string[];
  metadata?: Metadata;
  entityContext?: string;
  taskType?: string;
  dreaming?: string;
  filterByMetadata?: Metadata;
  filepath?: string;
  title?: string;
  documentDate?: string;
  messages?: ConversationMessage[];
  file?: { data: Buffer; name: string | null; mimeType: string | null; fileType: string | null };
}

export interface IngestResult {
  id: string;
  status: string;
}

interface ProcessingRow {
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

/** Documents: validation, customId/conversation upserts, reads and management. The pipeline lives in PipelineWorker. */
@Injectable()
export class DocumentsService {
  /** Adds for one customId run one after another, so no concurrent append is lost (reference #1696). */
  private readonly upserts = new KeyedMutex();

  constructor(
    private readonly store: IngestionStore,
    private readonly index: FullTextIndex,
    private readonly publisher: StatusPublisher,
    @InjectRepository(MemoryDocument) private readonly documents: Repository<MemoryDocument>,
    @InjectRepository(MemoryChunk) private readonly chunks: Repository<MemoryChunk>,
    @InjectRepository(MemoryEntry) private readonly memories: Repository<MemoryEntry>,
  ) {}

  /** Shared fields of `/v3/documents`, batch items and file uploads. `defaults` are batch-level values. */
  parseCommon(check: Checker, body: Record<string, unknown>, path: (string | number)[] = [], defaults: Partial<IngestInput> = {}): Partial<IngestInput> {
    const at = (k: string) => [...path, k];
    const tags = check.tags(body, path);
    const entityContext = check.string(body.entityContext, at('entityContext'), { max: LIMITS.entityContextLength });
    const documentDate = check.string(body.documentDate, at('documentDate'), { max: 64 });
    if (documentDate && Number.isNaN(Date.parse(documentDate))) check.fail(at('documentDate'), 'must be an ISO-8601 date');
    return {
      customId: check.customId(body.customId, at('customId')),
      containerTags: tags ?? defaults.containerTags,
      metadata: check.metadata(body.metadata, at('metadata')) ?? defaults.metadata,
      entityContext: entityContext ?? defaults.entityContext,
      taskType: check.oneOf(body.taskType, at('taskType'), TASK_TYPES) ?? defaults.taskType,
      dreaming: check.oneOf(body.dreaming, at('dreaming'), DREAMING) ?? defaults.dreaming,
      filterByMetadata: check.metadata(body.filterByMetadata, at('filterByMetadata')) ?? defaults.filterByMetadata,
      filepath: check.string(body.filepath, at('filepath'), { max: 1024 }) ?? defaults.filepath,
      title: check.string(body.title, at('title'), { max: 1000 }),
      documentDate: documentDate ?? defaults.documentDate,
    };
  }

  checkContent(check: Checker, content: unknown, path: (string | number)[]): string | undefined {
    const text = check.string(content, path, { required: true, min: 1 });
    if (text !== undefined && Buffer.byteLength(text) > LIMITS.textContentBytes) {
      check.fail(path, `must be at most ${LIMITS.textContentBytes} bytes`);
    }
    return text;
  }

  async add(raw: unknown): Promise<IngestResult> {
    const body = objectBody(raw);
    const check = new Checker();
    const content = this.checkContent(check, body.content, ['content']);
    const common = this.parseCommon(check, body);
    if (content !== undefined && Buffer.byteLength(content) > LIMITS.textContentBytes) throw new PayloadTooLargeError('content exceeds 1 MB');
    check.throwIfAny(body);
    return this.ingest({ ...common, content: content!, source: isUrl(content!) ? 'url' : 'text' });
  }

  async batch(raw: unknown): Promise<{ results: (IngestResult & { error?: string; details?: string })[]; success: number; failed: number }> {
    const body = objectBody(raw);
    const check = new Checker();
    const defaults = this.parseCommon(check, body);
    if (body.content !== undefined && body.content !== null) check.fail(['content'], 'must be absent or null on a batch; put content in documents[]');
    if (!Array.isArray(body.documents)) check.fail(['documents'], 'is required and must be an array');
    else if (body.documents.length < 1 || body.documents.length > LIMITS.batchItems) check.fail(['documents'], `must hold 1 to ${LIMITS.batchItems} items`);
    check.throwIfAny(body);
    const items = (body.documents as unknown[]).map((item, i) => {
      const itemCheck = new Checker();
      const fields = typeof item === 'string' ? { content: item } : item && typeof item === 'object' && !Array.isArray(item) ? (item as Record<string, unknown>) : undefined;
      if (!fields) {
        itemCheck.fail(['documents', i], 'must be an object or a string');
        return { issues: itemCheck.issues };
      }
      const content = this.checkContent(itemCheck, fields.content, ['documents', i, 'content']);
      const common = this.parseCommon(itemCheck, fields, ['documents', i], defaults);
      if (itemCheck.issues.length) return { issues: itemCheck.issues };
      const input: IngestInput = { ...common, content: content!, source: isUrl(content!) ? 'url' : 'text' };
      return { input };
    });
    const fresh = items.filter((it) => it.input && !it.input.customId).map((it) => it.input!);
    const created = await this.insertMany(fresh);
    let next = 0;
    const results: (IngestResult & { error?: string; details?: string })[] = [];
    for (const item of items) {
      if (!item.input) {
        const details = item.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
        results.push({ id: '', status: 'error', error: 'Invalid request parameters', details });
      } else if (!item.input.customId) results.push(created[next++]);
      else {
        try {
          results.push(await this.ingest(item.input));
        } catch (error) {
          results.push({ id: '', status: 'error', error: 'Could not add document', details: (error as Error).message });
        }
      }
    }
    const failed = results.filter((r) => r.status === 'error').length;
    return { results, success: results.length - failed, failed };
  }

  async conversation(raw: unknown): Promise<IngestResult & { conversationId: string }> {
    const body = objectBody(raw);
    const check = new Checker();
    const conversationId = check.string(body.conversationId ?? body.customId, [body.conversationId === undefined && body.customId !== undefined ? 'customId' : 'conversationId'], {
      required: true,
      min: 1,
      max: 255,
    });
    const messages = validateMessages(body.messages, check);
    const tags = check.tags(body);
    const metadata = check.metadata(body.metadata, ['metadata'], { arrays: false });
    const entityContext = check.string(body.entityContext, ['entityContext'], { max: LIMITS.entityContextLength });
    check.throwIfAny(body);
    const result = await this.ingest({
      content: messages.map(renderTurn).join('\n'),
      source: 'conversation',
      customId: conversationId,
      containerTags: tags,
      metadata,
      entityContext,
      messages,
    });
    return { id: result.id, conversationId: conversationId!, status: result.status };
  }

  /** Insert documents without customId in one transaction (the batch fast path). */
  private async insertMany(inputs: IngestInput[]): Promise<IngestResult[]> {
    if (!inputs.length) return [];
    const now = Date.now();
    const rows = inputs.map((input) => this.newRow(input, now));
    await this.store.transaction(async (q) => {
      for (let i = 0; i < rows.length; i += 100) await this.insertRows(q, rows.slice(i, i + 100));
    });
    for (const row of rows) this.publisher.publish(row);
    return rows.map((r) => ({ id: r.id, status: r.status }));
  }

  private async insertRows(q: Query, rows: MemoryDocument[]): Promise<void> {
    const columns = ['id', 'custom_id', 'content', 'raw', 'url', 'title', 'type', 'source', 'task_type', 'dreaming', 'status', 'dreaming_status', 'metadata', 'container_tag', 'container_tags', 'entity_context', 'filter_by_metadata', 'filepath', 'document_date', 'revision', 'dreamed_length', 'lease_until', 'created_at', 'updated_at'];
    const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
    const values = rows.flatMap((r) => [r.id, r.customId, r.content, json(r.raw), r.url, r.title, r.type, r.source, r.taskType, r.dreaming, r.status, r.dreamingStatus, json(r.metadata), r.containerTag, json(r.containerTags), r.entityContext, json(r.filterByMetadata), r.filepath, r.documentDate, r.revision, r.dreamedLength, r.leaseUntil, r.createdAt, r.updatedAt]);
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    await q(`INSERT INTO memory_document (${columns.join(', ')}) VALUES ${rows.map(() => tuple).join(', ')}`, values);
  }

  private newRow(input: IngestInput, now: number): MemoryDocument {
    const tags = input.containerTags?.length ? input.containerTags : [DEFAULT_TAG];
    return Object.assign(new MemoryDocument(), {
      id: documentId(),
      customId: input.customId ?? null,
      content: input.content,
      textContent: null,
      raw: input.messages,
      url: input.source === 'url' ? input.content.trim() : null,
      title: input.title ?? null,
      summary: null,
      type: input.source === 'url' ? 'webpage' : input.file?.fileType === 'pdf' ? 'pdf' : 'text',
      source: input.source,
      taskType: input.taskType ?? 'memory',
      dreaming: input.dreaming ?? 'dynamic',
      status: 'queued',
      dreamingStatus: 'dreaming',
      error: null,
      metadata: input.metadata ?? {},
      containerTag: tags[0],
      containerTags: tags,
      entityContext: input.entityContext ?? null,
      filterByMetadata: input.filterByMetadata,
      filepath: input.filepath ?? null,
      documentDate: input.documentDate ?? null,
      revision: 0,
      dreamedLength: 0,
      leaseUntil: now,
      createdAt: now,
      updatedAt: now,
    } satisfies Partial<MemoryDocument>);
  }

  /** Add, or upsert by customId: same id → same document; resent content is diffed, appends are appended. */
  async ingest(input: IngestInput): Promise<IngestResult> {
    if (!input.customId) return (await this.insertWithFile(input))[0];
    return this.upserts.run(input.customId, async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.upsert(input);
        } catch (error) {
          // Another replica inserted the same customId first: the next attempt updates it.
          if (attempt < 2 && /unique|duplicate/i.test((error as Error).message)) continue;
          throw error;
        }
      }
    });
  }

  private async insertWithFile(input: IngestInput): Promise<IngestResult[]> {
    const row = this.newRow(input, Date.now());
    await this.store.transaction(async (q) => {
      await this.insertRows(q, [row]);
      if (input.file) await this.saveFile(q, row.id, input);
    });
    this.publisher.publish(row);
    return [{ id: row.id, status: row.status }];
  }

  private async saveFile(q: Query, id: string, input: IngestInput): Promise<void> {
    const f = input.file!;
    await q('DELETE FROM memory_document_file WHERE document_id = ?', [id]);
    await q('INSERT INTO memory_document_file (document_id, file_name, mime_type, file_type, data) VALUES (?, ?, ?, ?, ?)', [id, f.name, f.mimeType, f.fileType, f.data.toString('base64')]);
  }

  private async upsert(input: IngestInput): Promise<IngestResult> {
    let published: MemoryDocument | undefined;
    const result = await this.store.transaction(async (q) => {
      const [existing] = await q<{ id: string; content: string | null; raw: string | null; metadata: string | null; status: string; revision: number }>(
        `SELECT id, content, raw, metadata, status, revision FROM memory_document WHERE custom_id = ?${this.store.forUpdate}`,
        [input.customId],
      );
      if (!existing) {
        const row = this.newRow(input, Date.now());
        await this.insertRows(q, [row]);
        if (input.file) await this.saveFile(q, row.id, input);
        published = row;
        return { id: row.id, status: row.status };
      }
      let content = input.content;
      let messages: ConversationMessage[] | undefined;
      let fullReplace = input.source === 'file';
      if (input.messages) {
        const stored = (existing.raw ? JSON.parse(existing.raw) : []) as ConversationMessage[];
        messages = mergeTurns(Array.isArray(stored) ? stored : [], input.messages);
        content = messages.map(renderTurn).join('\n');
      } else if (!fullReplace && existing.content) {
        const old = existing.content;
        // The whole updated content resent, a repeat of what is stored, or a new part to append.
        if (content.startsWith(old)) fullReplace = false;
        else if (old.endsWith(content)) content = old;
        else content = `${old}\n${content}`;
      }
      const now = Date.now();
      const metadata = { ...(existing.metadata ? (JSON.parse(existing.metadata) as Metadata) : {}), ...(input.metadata ?? {}) };
      const contentChanged = content !== existing.content || input.source === 'file';
      const sets: string[] = ['metadata = ?', 'updated_at = ?'];
      const params: unknown[] = [JSON.stringify(metadata), now];
      const optional: [string, unknown][] = [
        ['entity_context', input.entityContext],
        ['task_type', input.taskType],
        ['dreaming', input.dreaming],
        ['filepath', input.filepath],
        ['title', input.title],
        ['document_date', input.documentDate],
        ['filter_by_metadata', input.filterByMetadata && JSON.stringify(input.filterByMetadata)],
      ];
      if (input.containerTags?.length) optional.push(['container_tag', input.containerTags[0]], ['container_tags', JSON.stringify(input.containerTags)]);
      for (const [column, value] of optional) {
        if (value !== undefined) {
          sets.push(`${column} = ?`);
          params.push(value);
        }
      }
      if (contentChanged || existing.status === 'failed') {
        sets.push("status = 'queued'", "dreaming_status = 'dreaming'", 'error = NULL', 'revision = revision + 1', 'extract_attempts = 0', 'lease_until = ?', 'claimed_by = NULL', 'content = ?', 'raw = ?', 'source = ?');
        params.push(now, content, messages ? JSON.stringify(messages) : existing.raw, input.source);
        if (fullReplace) sets.push('dreamed_length = 0');
      }
      const [row] = await q<{ status: string; dreaming_status: string; custom_id: string | null }>(
        `UPDATE memory_document SET ${sets.join(', ')} WHERE id = ? RETURNING status, dreaming_status, custom_id`,
        [...params, existing.id],
      );
      if (input.file) await this.saveFile(q, existing.id, input);
      if (input.containerTags?.length && !contentChanged) await this.index.retagDocument(q, existing.id);
      if (contentChanged) published = Object.assign(new MemoryDocument(), { id: existing.id, customId: row.custom_id, status: row.status, dreamingStatus: row.dreaming_status });
      return { id: existing.id, status: row.status };
    });
    if (published) this.publisher.publish(published);
    return result;
  }

  /** By id, then by customId. */
  async find(idOrCustomId: string): Promise<MemoryDocument> {
    const doc = (await this.documents.findOneBy({ id: idOrCustomId })) ?? (await this.documents.findOneBy({ customId: idOrCustomId }));
    if (!doc) throw new NotFoundError('Document not found');
    return doc;
  }

  async get(idOrCustomId: string): Promise<Record<string, unknown>> {
    const doc = await this.find(idOrCustomId);
    const memories = await this.memories.find({ where: { documentId: doc.id }, order: { createdAt: 'ASC' } });
    return documentView(doc, { content: true, memories: memories.map(memoryView) });
  }

  async list(raw: unknown): Promise<Record<string, unknown>> {
    const body = raw === undefined || raw === null ? {} : objectBody(raw);
    const check = new Checker();
    const tags = check.tags(body);
    const filter = parseFilter(body.filters, check, ['filters']);
    const includeContent = check.boolean(body.includeContent, ['includeContent']) ?? false;
    const limit = check.number(body.limit, ['limit'], { min: 1, max: LIMITS.listLimit, integer: true }) ?? 10;
    const page = check.number(body.page, ['page'], { min: 1, max: LIMITS.page, integer: true }) ?? 1;
    const sort = check.oneOf(body.sort, ['sort'], ['createdAt', 'updatedAt'] as const) ?? 'createdAt';
    const order = check.oneOf(body.order, ['order'], ['asc', 'desc'] as const) ?? 'desc';
    const filepath = check.string(body.filepath, ['filepath']);
    // Keel's additions (the console's filters): statuses, types and a creation-date range.
    const statuses = this.stringList(check, body.statuses, ['statuses'], (v, path) => check.oneOf(v, path, DOCUMENT_STATUSES));
    const types = this.stringList(check, body.types, ['types'], (v, path) => check.string(v, path, { required: true, min: 1, max: 32 }));
    const createdAfter = this.isoDate(check, body.createdAfter, ['createdAfter']);
    const createdBefore = this.isoDate(check, body.createdBefore, ['createdBefore']);
    check.throwIfAny(body);
    const qb = this.documents.createQueryBuilder('d');
    if (!includeContent) qb.select(['d.id', 'd.customId', 'd.createdAt', 'd.updatedAt', 'd.filepath', 'd.metadata', 'd.status', 'd.error', 'd.summary', 'd.title', 'd.type', 'd.url', 'd.containerTags']);
    if (statuses?.length) qb.andWhere('d.status IN (:...statuses)', { statuses });
    if (types?.length) qb.andWhere('d.type IN (:...types)', { types });
    if (createdAfter !== undefined) qb.andWhere('d.createdAt >= :createdAfter', { createdAfter });
    if (createdBefore !== undefined) qb.andWhere('d.createdAt < :createdBefore', { createdBefore });
    if (tags?.length) qb.andWhere(`(${tags.map((_, i) => `d.container_tags LIKE :tag${i}`).join(' OR ')})`, Object.fromEntries(tags.map((t, i) => [`tag${i}`, `%"${t}"%`])));
    if (filepath) qb.andWhere(filepath.endsWith('/') ? 'd.filepath LIKE :fp' : 'd.filepath = :fp', { fp: filepath.endsWith('/') ? `${filepath}%` : filepath });
    qb.orderBy(sort === 'createdAt' ? 'd.createdAt' : 'd.updatedAt', order === 'asc' ? 'ASC' : 'DESC').addOrderBy('d.id', 'ASC');
    let docs: MemoryDocument[];
    let total: number;
    if (filter) {
      // Metadata filters run on the decoded JSON; the page is cut afterwards.
      const all = (await qb.getMany()).filter((d) => matchesFilter(filter, d.metadata));
      total = all.length;
      docs = all.slice((page - 1) * limit, page * limit);
    } else {
      // The page and the count side by side, and COUNT(*) rather than getManyAndCount's COUNT(DISTINCT id)
      // (one table, no joins, so no duplicates), which hashed every matching row on PostgreSQL.
      const counted = qb.clone().select('COUNT(*)', 'total').orderBy().getRawOne<{ total: string | number }>();
      [docs, total] = await Promise.all([qb.offset((page - 1) * limit).limit(limit).getMany(), counted.then((row) => Number(row?.total ?? 0))]);
    }
    return {
      memories: docs.map((d) => documentView(d, { content: includeContent, summaryOnly: true })),
      pagination: { currentPage: page, limit, totalItems: total, totalPages: Math.ceil(total / limit) },
    };
  }

  private stringList<T>(check: Checker, value: unknown, path: string[], item: (v: unknown, path: (string | number)[]) => T | undefined): T[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || value.length > 20) {
      check.fail(path, 'must be an array of at most 20 items');
      return undefined;
    }
    return value.map((v, i) => item(v, [...path, i])).filter((v): v is T => v !== undefined);
  }

  /** An ISO-8601 date as epoch milliseconds (how timestamps are stored). */
  private isoDate(check: Checker, value: unknown, path: string[]): number | undefined {
    const text = check.string(value, path, { min: 1, max: 64 });
    if (text === undefined) return undefined;
    const ms = Date.parse(text);
    if (Number.isNaN(ms)) check.fail(path, 'must be an ISO-8601 date');
    return ms;
  }

  /**
   * Unfinished documents, oldest first. Clients poll this while they ingest: both queries read the
   * partial index of unfinished rows (with 20,000 queued documents, scanning the table for them took
   * 100 ms a call), and raw rows skip entity hydration.
   */
  async processing(): Promise<Record<string, unknown>> {
    const [rows, [count]] = await Promise.all([
      this.store.query<ProcessingRow>(
        `SELECT id, custom_id, title, type, status, created_at, updated_at, metadata, container_tags FROM memory_document WHERE ${UNFINISHED} ORDER BY created_at ASC LIMIT 1000`,
      ),
      this.store.query<{ total: number | string }>(`SELECT COUNT(*) AS total FROM memory_document WHERE ${UNFINISHED}`),
    ]);
    const json = <T>(text: string | null, fallback: T): T => (text ? (JSON.parse(text) as T) : fallback);
    return {
      documents: rows.map((d) => ({
        id: d.id,
        customId: d.custom_id,
        title: d.title,
        type: d.type,
        status: d.status,
        createdAt: new Date(Number(d.created_at)).toISOString(),
        updatedAt: new Date(Number(d.updated_at)).toISOString(),
        metadata: json(d.metadata, {}),
        containerTags: json(d.container_tags, []),
      })),
      totalCount: Number(count.total),
    };
  }

  async update(idOrCustomId: string, raw: unknown): Promise<IngestResult> {
    const body = objectBody(raw);
    const check = new Checker();
    const content = body.content === undefined ? undefined : this.checkContent(check, body.content, ['content']);
    const common = this.parseCommon(check, body);
    check.throwIfAny(body);
    const doc = await this.find(idOrCustomId);
    const now = Date.now();
    const changes: Partial<MemoryDocument> = { updatedAt: now };
    if (common.metadata) changes.metadata = { ...(doc.metadata ?? {}), ...common.metadata };
    if (common.containerTags?.length) Object.assign(changes, { containerTag: common.containerTags[0], containerTags: common.containerTags });
    if (common.customId !== undefined) changes.customId = common.customId;
    if (common.taskType) changes.taskType = common.taskType;
    if (common.entityContext !== undefined) changes.entityContext = common.entityContext;
    if (common.filepath !== undefined) changes.filepath = common.filepath;
    if (common.filterByMetadata) changes.filterByMetadata = common.filterByMetadata;
    const reprocess = content !== undefined && content !== doc.content;
    await this.store.transaction(async (q) => {
      await q(`SELECT id FROM memory_document WHERE id = ?${this.store.forUpdate}`, [doc.id]);
      if (reprocess) {
        // A full replace: the old memories of this document go with the old content.
        await this.index.deleteMemoriesOf(q, doc.id);
        Object.assign(changes, { content, source: isUrl(content) ? 'url' : 'text', url: isUrl(content) ? content.trim() : null, status: 'queued', dreamingStatus: 'dreaming', error: null, dreamedLength: 0, leaseUntil: now, revision: doc.revision + 1, extractAttempts: 0 });
      }
      const sets = Object.keys(changes).map((k) => `${this.documents.metadata.findColumnWithPropertyName(k)!.databaseName} = ?`);
      const values = Object.entries(changes).map(([k, v]) => {
        const column = this.documents.metadata.findColumnWithPropertyName(k)!;
        return column.transformer && !Array.isArray(column.transformer) ? (column.transformer.to(v) as unknown) : v;
      });
      await q(`UPDATE memory_document SET ${sets.join(', ')} WHERE id = ? RETURNING id`, [...values, doc.id]);
      if (changes.containerTags && !reprocess) await this.index.retagDocument(q, doc.id);
    }).catch((error: Error) => {
      if (/unique|duplicate/i.test(error.message)) throw new BadRequestError(`customId ${common.customId} is used by another document`);
      throw error;
    });
    if (reprocess) this.publisher.publish({ id: doc.id, customId: changes.customId ?? doc.customId, status: 'queued', dreamingStatus: 'dreaming' });
    return { id: doc.id, status: reprocess ? 'queued' : doc.status };
  }

  async remove(idOrCustomId: string): Promise<void> {
    const doc = await this.find(idOrCustomId);
    await this.deleteDocuments([doc.id]);
  }

  private async deleteDocuments(ids: string[]): Promise<void> {
    await this.store.transaction(async (q) => {
      for (const id of ids) {
        // Lock the document row first, in the same order as the pipeline's writes, so the two never deadlock.
        await q(`SELECT id FROM memory_document WHERE id = ?${this.store.forUpdate}`, [id]);
        await this.index.deleteChunks(q, id);
        await this.index.deleteMemoriesOf(q, id);
        await q('DELETE FROM memory_document_file WHERE document_id = ?', [id]);
        await q('DELETE FROM memory_document WHERE id = ? RETURNING id', [id]);
      }
    });
  }

  async removeBulk(raw: unknown): Promise<Record<string, unknown>> {
    const body = objectBody(raw);
    const check = new Checker();
    let ids: string[] | undefined;
    if (body.ids !== undefined) {
      if (!Array.isArray(body.ids) || body.ids.length < 1 || body.ids.length > 100) check.fail(['ids'], 'must be an array of 1 to 100 ids');
      else ids = body.ids.map((id, i) => check.string(id, ['ids', i], { required: true, min: 1 }) ?? '');
    }
    const tags = check.tags(body);
    const filepath = check.string(body.filepath, ['filepath']);
    if (!ids && !tags?.length && !filepath) check.fail(['ids'], 'ids or containerTags is required');
    check.throwIfAny(body);
    const found: string[] = [];
    const errors: { id: string; error: string }[] = [];
    for (const id of ids ?? []) {
      const doc = (await this.documents.findOneBy({ id })) ?? (await this.documents.findOneBy({ customId: id }));
      if (doc) found.push(doc.id);
      else errors.push({ id, error: 'Document not found' });
    }
    if (!ids) {
      const qb = this.documents.createQueryBuilder('d').select('d.id');
      if (tags?.length) qb.andWhere(`(${tags.map((_, i) => `d.container_tags LIKE :tag${i}`).join(' OR ')})`, Object.fromEntries(tags.map((t, i) => [`tag${i}`, `%"${t}"%`])));
      if (filepath) qb.andWhere(filepath.endsWith('/') ? 'd.filepath LIKE :fp' : 'd.filepath = :fp', { fp: filepath.endsWith('/') ? `${filepath}%` : filepath });
      found.push(...(await qb.getMany()).map((d) => d.id));
    }
    await this.deleteDocuments(found);
    return { success: true, deletedCount: found.length, ...(errors.length ? { errors } : {}), ...(tags ? { containerTags: tags } : {}) };
  }

  async listChunks(idOrCustomId: string): Promise<Record<string, unknown>> {
    const doc = await this.find(idOrCustomId);
    const chunks = await this.chunks.find({ where: { documentId: doc.id }, order: { position: 'ASC' } });
    return {
      documentId: doc.id,
      chunks: chunks.map((c) => ({ id: String(c.id), position: c.position, index: c.position, content: c.content, type: 'text', metadata: { startOffset: c.startOffset, endOffset: c.endOffset }, createdAt: new Date(c.createdAt).toISOString() })),
      total: chunks.length,
    };
  }

  static readonly statuses = DOCUMENT_STATUSES;
}
