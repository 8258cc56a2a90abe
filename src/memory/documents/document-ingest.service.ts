import { Injectable } from '@nestjs/common';
import { BadRequestError } from '../../common/errors';
import { documentId } from '../../common/ids';
import { MemoryDocument } from './memory-document.entity';
import { ConversationMessage, renderTurn } from './conversation';
import { isUrl } from '../pipeline/extraction';
import { StatusPublisher } from '../pipeline/status-publisher';
import { FullTextIndex } from '../search/full-text-index';
import { KeyedMutex } from '../../common/keyed-mutex';
import { IngestionStore, Query } from '../store';
import { containerTagsOf } from '../validation';
import { isUniqueViolation } from '../../database/unique-violation';
import { DocumentFile, DocumentRepository, UpsertChanges } from './document.repository';
import { mergeUpsert } from './document-merge';
import { DocumentQueryService } from './document-query.service';
import type { UploadForm } from './upload-form';
import type {
  AddDocumentBody,
  BatchBody,
  BatchItemResult,
  BatchResponse,
  ConversationBody,
  ConversationResponse,
  DeleteBulkBody,
  DeleteBulkResponse,
  DocumentFieldValues,
  IngestResponse,
  UpdateDocumentBody,
} from './dto/document.dto';

const DEFAULT_TAG = 'sm_project_default';

/** One document to add or upsert, after validation. */
export interface IngestInput extends Partial<UpsertChanges> {
  content: string;
  source: 'text' | 'url' | 'file' | 'conversation';
  customId?: string;
  messages?: ConversationMessage[];
  file?: DocumentFile;
}

/** The fields that were sent: those whose value is not undefined. */
const sent = <T extends object>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;

/** The shared fields of a checked document write, as IngestInput holds them (those not sent left out). */
function ingestFields(body: DocumentFieldValues): Partial<IngestInput> {
  const { customId, metadata, entityContext, taskType, dreaming, filterByMetadata, filepath, title } = body;
  const fields = { customId, metadata, entityContext, taskType, dreaming, filterByMetadata, filepath, title };
  return sent({ ...fields, containerTags: containerTagsOf(body), documentDate: body.documentDate });
}

/** Writes of documents (their requests checked at the boundary): adds, customId/conversation upserts, updates and deletes. The pipeline lives in PipelineWorker. */
@Injectable()
export class DocumentIngestService {
  /** Adds for one customId run one after another, so no concurrent append is lost (reference #1696). */
  private readonly upserts = new KeyedMutex();

  constructor(
    private readonly store: IngestionStore,
    private readonly index: FullTextIndex,
    private readonly publisher: StatusPublisher,
    private readonly repository: DocumentRepository,
    private readonly reads: DocumentQueryService,
  ) {}

  async add(org: string, body: AddDocumentBody): Promise<IngestResponse> {
    return this.ingest(org, { ...ingestFields(body), content: body.content, source: isUrl(body.content) ? 'url' : 'text' });
  }

  /** `POST /v3/documents/file`: the file is stored with its document and read by the pipeline (unsupported types fail there). */
  async addFile(org: string, { file, fields }: UploadForm): Promise<IngestResponse> {
    const common = ingestFields(fields);
    const { fileType, mimeType } = fields;
    return this.ingest(org, {
      ...common,
      title: common.title ?? file.originalname,
      content: '',
      source: 'file',
      file: { data: file.buffer, name: file.originalname || null, mimeType: mimeType ?? file.mimetype ?? null, fileType: fileType ?? null },
    });
  }

  /** Each item was checked as BatchDocument (a bad one fails alone); the batch's fields are the items' defaults. */
  async batch(org: string, body: BatchBody): Promise<BatchResponse> {
    const defaults = ingestFields(body);
    const items = body.documents.map((item) => {
      if (!item.document) return { issues: item.issues };
      const { content } = item.document;
      const own = ingestFields(item.document);
      const source = isUrl(content) ? 'url' : 'text';
      const input: IngestInput = { ...defaults, ...own, customId: own.customId, title: own.title, content, source };
      return { input };
    });
    const fresh = items.filter((it) => it.input && !it.input.customId).map((it) => it.input!);
    const created = await this.insertMany(org, fresh);
    let next = 0;
    const results: BatchItemResult[] = [];
    for (const item of items) {
      if (!item.input) {
        const details = item.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
        results.push({ id: '', status: 'error', error: 'Invalid request parameters', details });
      } else if (!item.input.customId) results.push(created[next++]);
      else {
        try {
          results.push(await this.ingest(org, item.input));
        } catch (error) {
          results.push({ id: '', status: 'error', error: 'Could not add document', details: (error as Error).message });
        }
      }
    }
    const failed = results.filter((r) => r.status === 'error').length;
    return { results, success: results.length - failed, failed };
  }

  async conversation(org: string, body: ConversationBody): Promise<ConversationResponse> {
    const conversationId = body.conversationId ?? body.customId!;
    const result = await this.ingest(org, {
      content: body.messages.map(renderTurn).join('\n'),
      source: 'conversation',
      customId: conversationId,
      containerTags: containerTagsOf(body),
      metadata: body.metadata,
      entityContext: body.entityContext,
      messages: body.messages,
    });
    return { id: result.id, conversationId, status: result.status };
  }

  /** Insert documents without customId (and their files) in one transaction. */
  private async insertMany(org: string, inputs: IngestInput[]): Promise<IngestResponse[]> {
    if (!inputs.length) return [];
    const now = Date.now();
    const rows = inputs.map((input) => this.newRow(org, input, now));
    await this.store.transaction(async (q) => {
      await this.repository.insert(q, rows);
      for (const [i, { file }] of inputs.entries())
        if (file) await this.repository.saveFile(q, rows[i].id, file);
    });
    for (const row of rows) this.publisher.publish(row);
    return rows.map((r) => ({ id: r.id, status: r.status }));
  }

  private newRow(org: string, input: IngestInput, now: number): MemoryDocument {
    const tags = input.containerTags?.length ? input.containerTags : [DEFAULT_TAG];
    return Object.assign(new MemoryDocument(), {
      id: documentId(),
      orgId: org,
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
  async ingest(org: string, input: IngestInput): Promise<IngestResponse> {
    if (!input.customId) return (await this.insertMany(org, [input]))[0];
    const customId = input.customId;
    // A customId names one document within its organization.
    return this.upserts.run(`${org}\n${customId}`, async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.upsert(org, customId, input);
        } catch (error) {
          // Another replica inserted the same customId first: the next attempt updates it.
          if (attempt < 2 && isUniqueViolation(error)) continue;
          throw error;
        }
      }
    });
  }

  /** A new document (and its file) in the transaction `q`. */
  private async insertNew(q: Query, org: string, input: IngestInput): Promise<MemoryDocument> {
    const row = this.newRow(org, input, Date.now());
    await this.repository.insert(q, [row]);
    if (input.file) await this.repository.saveFile(q, row.id, input.file);
    return row;
  }

  private async upsert(org: string, customId: string, input: IngestInput): Promise<IngestResponse> {
    let published: MemoryDocument | undefined;
    const result = await this.store.transaction(async (q) => {
      const existing = await this.repository.lockByCustomId(q, org, customId);
      if (!existing) {
        published = await this.insertNew(q, org, input);
        return { id: published.id, status: published.status };
      }
      const merged = mergeUpsert(existing, input);
      const requeue = merged.requeue ? { content: merged.content, raw: merged.raw, source: input.source, resetDreamed: merged.resetDreamed } : undefined;
      const row = await this.repository.saveUpsert(q, existing.id, { ...input, metadata: merged.metadata }, Date.now(), requeue);
      if (input.file) await this.repository.saveFile(q, existing.id, input.file);
      if (input.containerTags?.length && !merged.contentChanged) await this.index.retagDocument(q, existing.id);
      if (merged.contentChanged) published = Object.assign(new MemoryDocument(), { id: existing.id, orgId: org, customId: row.custom_id, status: row.status, dreamingStatus: row.dreaming_status });
      return { id: existing.id, status: row.status };
    });
    if (published) this.publisher.publish(published);
    return result;
  }

  async update(org: string, idOrCustomId: string, body: UpdateDocumentBody): Promise<IngestResponse> {
    const content = body.content;
    // In place: these fields as sent, the metadata merged into the stored one (title, dreaming and documentDate stay).
    const { metadata, containerTags, customId, taskType, entityContext, filepath, filterByMetadata } = ingestFields(body);
    const doc = await this.reads.find(org, idOrCustomId);
    const now = Date.now();
    const sentFields = sent({ customId, taskType, entityContext, filepath, filterByMetadata });
    const changes: Partial<MemoryDocument> = { updatedAt: now, ...sentFields };
    if (metadata) changes.metadata = { ...(doc.metadata ?? {}), ...metadata };
    if (containerTags?.length) Object.assign(changes, { containerTag: containerTags[0], containerTags });
    const reprocess = content !== undefined && content !== doc.content;
    await this.store
      .transaction(async (q) => {
        await this.repository.lock(q, doc.id);
        if (reprocess) {
          // A full replace: the old memories of this document go with the old content.
          await this.index.deleteMemoriesOf(q, doc.id);
          Object.assign(changes, { content, source: isUrl(content) ? 'url' : 'text', url: isUrl(content) ? content.trim() : null, status: 'queued', dreamingStatus: 'dreaming', error: null, dreamedLength: 0, leaseUntil: now, revision: doc.revision + 1, extractAttempts: 0 });
        }
        await this.repository.update(q, doc.id, changes);
        if (changes.containerTags && !reprocess) await this.index.retagDocument(q, doc.id);
      })
      .catch((error: Error) => {
        if (isUniqueViolation(error)) throw new BadRequestError(`customId ${customId} is used by another document`);
        throw error;
      });
    if (reprocess) this.publisher.publish({ id: doc.id, orgId: org, customId: changes.customId ?? doc.customId, status: 'queued', dreamingStatus: 'dreaming' });
    return { id: doc.id, status: reprocess ? 'queued' : doc.status };
  }

  async remove(org: string, idOrCustomId: string): Promise<void> {
    const doc = await this.reads.find(org, idOrCustomId);
    await this.repository.deleteCascade([doc.id]);
  }

  async removeBulk(org: string, body: DeleteBulkBody): Promise<DeleteBulkResponse> {
    const { ids, filepath } = body;
    const tags = containerTagsOf(body);
    const found: string[] = [];
    const errors: { id: string; error: string }[] = [];
    for (const id of ids ?? []) {
      const doc = await this.repository.findByIdOrCustomId(org, id);
      if (doc) found.push(doc.id);
      else errors.push({ id, error: 'Document not found' });
    }
    if (!ids) found.push(...(await this.repository.idsInScope(org, { tags, filepath })));
    await this.repository.deleteCascade(found);
    return { success: true, deletedCount: found.length, ...(errors.length ? { errors } : {}), ...(tags ? { containerTags: tags } : {}) };
  }
}
