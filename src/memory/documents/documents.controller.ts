import { Delete, Get, Param, Patch, Post, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiResponse } from '@nestjs/swagger';
import { Consumes } from '../../common/body-type.guard';
import { DocumentIngestService } from './document-ingest.service';
import { DocumentQueryService } from './document-query.service';
import { CheckedUploadForm } from './upload-form';
import type { UploadForm } from './upload-form';
import { LIMITS, MemoryBody } from '../validation';
import {
  AddDocumentBody,
  BatchBody,
  BatchResponse,
  ChunksResponse,
  ConversationBody,
  ConversationResponse,
  DeleteBulkBody,
  DeleteBulkResponse,
  DocumentDetail,
  ErrorBody,
  IngestResponse,
  ListDocumentsBody,
  ListDocumentsResponse,
  ProcessingResponse,
  UpdateDocumentBody,
  UploadFileForm,
} from './dto/document.dto';
import { MemoryController, MemoryOperation } from '../memory-api.decorators';
import { Org } from '../organizations/org.decorator';
import { ItemsCheckedByHandler } from '../../common/text-input.guard';

@MemoryController({
  path: 'v3/documents',
  tag: 'memory: documents',
  errors: [
    { status: 400, description: 'Invalid request parameters' },
    { status: 401, description: 'Missing or invalid API key' },
  ],
})
export class DocumentsController {
  constructor(
    private readonly ingest: DocumentIngestService,
    private readonly reads: DocumentQueryService,
  ) {}

  @Post()
  @MemoryOperation('documents.add', 'Add text, markdown, HTML, JSON or a URL', {
    body: AddDocumentBody,
    type: IngestResponse,
  })
  add(@Org() org: string, @MemoryBody() body: AddDocumentBody): Promise<IngestResponse> {
    return this.ingest.add(org, body);
  }

  @Post('file')
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: LIMITS.fileBytes, fieldSize: 2 * 1024 * 1024 } }))
  @Consumes('multipart/form-data')
  @MemoryOperation('documents.uploadFile', 'Upload a file (text, markdown, HTML, JSON, PDF, DOCX)', {
    body: UploadFileForm,
    type: IngestResponse,
  })
  uploadFile(@Org() org: string, @CheckedUploadForm() form: UploadForm): Promise<IngestResponse> {
    return this.ingest.addFile(org, form);
  }

  @Post('batch')
  @MemoryOperation('documents.batchAdd', 'Add 1 to 600 documents', { body: BatchBody, type: BatchResponse })
  @ItemsCheckedByHandler('documents')
  batch(@Org() org: string, @MemoryBody() body: BatchBody): Promise<BatchResponse> {
    return this.ingest.batch(org, body);
  }

  @Post('list')
  @MemoryOperation('documents.list', 'List documents with filters, pagination and sort', {
    body: ListDocumentsBody,
    optionalBody: true,
    type: ListDocumentsResponse,
  })
  list(@Org() org: string, @MemoryBody({ optional: true }) body: ListDocumentsBody): Promise<ListDocumentsResponse> {
    return this.reads.list(org, body);
  }

  @Get('processing')
  @MemoryOperation('documents.listProcessing', 'Documents still in the pipeline', {
    type: ProcessingResponse,
  })
  processing(@Org() org: string): Promise<ProcessingResponse> {
    return this.reads.processing(org);
  }

  @Delete('bulk')
  @MemoryOperation('documents.deleteBulk', 'Delete documents by ids or container tags', {
    body: DeleteBulkBody,
    type: DeleteBulkResponse,
  })
  removeBulk(@Org() org: string, @MemoryBody() body: DeleteBulkBody): Promise<DeleteBulkResponse> {
    return this.ingest.removeBulk(org, body);
  }

  @Get(':id/chunks')
  @MemoryOperation('documents.chunks', 'Chunks of a document in order', { type: ChunksResponse })
  @ApiResponse({ status: 404, type: ErrorBody })
  chunks(@Org() org: string, @Param('id') id: string): Promise<ChunksResponse> {
    return this.reads.listChunks(org, id);
  }

  @Get(':id')
  @MemoryOperation('documents.get', 'A document with its status (by id or customId)', {
    type: DocumentDetail,
  })
  @ApiResponse({ status: 404, type: ErrorBody })
  get(@Org() org: string, @Param('id') id: string): Promise<DocumentDetail> {
    return this.reads.get(org, id);
  }

  @Patch(':id')
  @MemoryOperation('documents.update', 'Update metadata in place, or replace content and reprocess', {
    body: UpdateDocumentBody,
    type: IngestResponse,
  })
  update(@Org() org: string, @Param('id') id: string, @MemoryBody() body: UpdateDocumentBody): Promise<IngestResponse> {
    return this.ingest.update(org, id, body);
  }

  @Delete(':id')
  @MemoryOperation('documents.delete', 'Delete a document by id or customId', {
    status: 204,
    description: 'Deleted',
  })
  @ApiResponse({ status: 404, type: ErrorBody })
  async remove(@Org() org: string, @Param('id') id: string): Promise<void> {
    await this.ingest.remove(org, id);
  }
}

@MemoryController({ path: 'v4/conversations', tag: 'memory: conversations' })
export class ConversationsController {
  constructor(private readonly ingest: DocumentIngestService) {}

  @Post()
  @MemoryOperation('conversations.add', 'Add or update a conversation, turn-aware', {
    body: ConversationBody,
    type: ConversationResponse,
  })
  @ApiResponse({ status: 400, type: ErrorBody })
  add(@Org() org: string, @MemoryBody() body: ConversationBody): Promise<ConversationResponse> {
    return this.ingest.conversation(org, body);
  }
}
