import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../../common/errors';
import { MemoryDocument } from './memory-document.entity';
import { matchesFilter } from '../search/metadata-filter';
import { containerTagsOf } from '../validation';
import { MemoryEntryRepository } from '../memories/memory-entry.repository';
import { DocumentRepository } from './document.repository';
import { chunkView, documentSummaryView, documentView, memoryView, processingView } from './document-views';
import type { ChunksResponse, DocumentDetail, ListDocumentsBody, ListDocumentsResponse, ProcessingResponse } from './dto/document.dto';

/** Reads of documents: one by id or customId, lists, what is still in the pipeline, chunks. */
@Injectable()
export class DocumentQueryService {
  constructor(
    private readonly repository: DocumentRepository,
    private readonly memories: MemoryEntryRepository,
  ) {}

  /** By id, then by customId, within the organization (another organization's document is not found). */
  async find(org: string, idOrCustomId: string): Promise<MemoryDocument> {
    const doc = await this.repository.findByIdOrCustomId(org, idOrCustomId);
    if (!doc) throw new NotFoundError('Document not found');
    return doc;
  }

  async get(org: string, idOrCustomId: string): Promise<DocumentDetail> {
    const doc = await this.find(org, idOrCustomId);
    const memories = await this.memories.ofDocument(doc.id);
    return documentView(doc, memories.map(memoryView));
  }

  async list(org: string, body: ListDocumentsBody): Promise<ListDocumentsResponse> {
    const tags = containerTagsOf(body);
    const { filters: filter, filepath, statuses, types, includeContent = false } = body;
    const { limit = 10, page = 1, sort = 'createdAt', order = 'desc' } = body;
    // Keel's additions (the console's filters): statuses, types and a creation-date range, as stored (epoch ms).
    const createdAfter = body.createdAfter === undefined ? undefined : Date.parse(body.createdAfter);
    const createdBefore = body.createdBefore === undefined ? undefined : Date.parse(body.createdBefore);
    // Metadata filters run on the decoded JSON; the page is cut afterwards.
    const where = filter ? (d: MemoryDocument) => matchesFilter(filter, d.metadata) : undefined;
    const { docs, total } = await this.repository.listPage(org, { tags, filepath, includeContent, statuses, types, createdAfter, createdBefore, sort, order }, page, limit, where);
    return {
      memories: docs.map((d) => documentSummaryView(d, includeContent)),
      pagination: { currentPage: page, limit, totalItems: total, totalPages: Math.ceil(total / limit) },
    };
  }

  /** Unfinished documents, oldest first (clients poll this while they ingest). */
  async processing(org: string): Promise<ProcessingResponse> {
    const { rows, total } = await this.repository.processing(org);
    return { documents: rows.map(processingView), totalCount: total };
  }

  async listChunks(org: string, idOrCustomId: string): Promise<ChunksResponse> {
    const doc = await this.find(org, idOrCustomId);
    const chunks = await this.repository.chunksOf(doc.id);
    return { documentId: doc.id, chunks: chunks.map(chunkView), total: chunks.length };
  }
}
