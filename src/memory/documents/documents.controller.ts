import { Controller, Delete, Get, HttpCode, Param, Patch, Post, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
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
import { MemoryApiAuth } from '../memory-auth.decorator';
import { Org } from '../organizations/org.decorator';
import { ItemsCheckedByHandler } from '../../common/text-input.guard';

@ApiTags('memory: documents')
@MemoryApiAuth()
@ApiResponse({ status: 400, type: ErrorBody, description: 'Invalid request parameters' })
@ApiResponse({ status: 401, type: ErrorBody, description: 'Missing or invalid API key' })
@Controller('v3/documents')
export class DocumentsController {
  constructor(
    private readonly ingest: DocumentIngestService,
    private readonly reads: DocumentQueryService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'documents.add', summary: 'Add text, markdown, HTML, JSON or a URL' })
  @ApiBody({ type: AddDocumentBody })
  @ApiResponse({ status: 200, type: IngestResponse })
  add(@Org() org: string, @MemoryBody() body: AddDocumentBody): Promise<IngestResponse> {
    return this.ingest.add(org, body);
  }

  @Post('file')
  @HttpCode(200)
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: LIMITS.fileBytes, fieldSize: 2 * 1024 * 1024 } }))
  @Consumes('multipart/form-data')
  @ApiOperation({ operationId: 'documents.uploadFile', summary: 'Upload a file (text, markdown, HTML, JSON, PDF, DOCX)' })
  @ApiBody({ type: UploadFileForm })
  @ApiResponse({ status: 200, type: IngestResponse })
  uploadFile(@Org() org: string, @CheckedUploadForm() form: UploadForm): Promise<IngestResponse> {
    return this.ingest.addFile(org, form);
  }

  @Post('batch')
  @HttpCode(200)
  @ApiOperation({ operationId: 'documents.batchAdd', summary: 'Add 1 to 600 documents' })
  @ApiBody({ type: BatchBody })
  @ApiResponse({ status: 200, type: BatchResponse })
  @ItemsCheckedByHandler('documents')
  batch(@Org() org: string, @MemoryBody() body: BatchBody): Promise<BatchResponse> {
    return this.ingest.batch(org, body);
  }

  @Post('list')
  @HttpCode(200)
  @ApiOperation({ operationId: 'documents.list', summary: 'List documents with filters, pagination and sort' })
  @ApiBody({ type: ListDocumentsBody, required: false })
  @ApiResponse({ status: 200, type: ListDocumentsResponse })
  list(@Org() org: string, @MemoryBody({ optional: true }) body: ListDocumentsBody): Promise<ListDocumentsResponse> {
    return this.reads.list(org, body);
  }

  @Get('processing')
  @ApiOperation({ operationId: 'documents.listProcessing', summary: 'Documents still in the pipeline' })
  @ApiResponse({ status: 200, type: ProcessingResponse })
  processing(@Org() org: string): Promise<ProcessingResponse> {
    return this.reads.processing(org);
  }

  @Delete('bulk')
  @ApiOperation({ operationId: 'documents.deleteBulk', summary: 'Delete documents by ids or container tags' })
  @ApiBody({ type: DeleteBulkBody })
  @ApiResponse({ status: 200, type: DeleteBulkResponse })
  removeBulk(@Org() org: string, @MemoryBody() body: DeleteBulkBody): Promise<DeleteBulkResponse> {
    return this.ingest.removeBulk(org, body);
  }

  @Get(':id/chunks')
  @ApiOperation({ operationId: 'documents.chunks', summary: 'Chunks of a document in order' })
  @ApiResponse({ status: 200, type: ChunksResponse })
  @ApiResponse({ status: 404, type: ErrorBody })
  chunks(@Org() org: string, @Param('id') id: string): Promise<ChunksResponse> {
    return this.reads.listChunks(org, id);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'documents.get', summary: 'A document with its status (by id or customId)' })
  @ApiResponse({ status: 200, type: DocumentDetail })
  @ApiResponse({ status: 404, type: ErrorBody })
  get(@Org() org: string, @Param('id') id: string): Promise<DocumentDetail> {
    return this.reads.get(org, id);
  }

  @Patch(':id')
  @ApiOperation({ operationId: 'documents.update', summary: 'Update metadata in place, or replace content and reprocess' })
  @ApiBody({ type: UpdateDocumentBody })
  @ApiResponse({ status: 200, type: IngestResponse })
  update(@Org() org: string, @Param('id') id: string, @MemoryBody() body: UpdateDocumentBody): Promise<IngestResponse> {
    return this.ingest.update(org, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'documents.delete', summary: 'Delete a document by id or customId' })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @ApiResponse({ status: 404, type: ErrorBody })
  async remove(@Org() org: string, @Param('id') id: string): Promise<void> {
    await this.ingest.remove(org, id);
  }
}

@ApiTags('memory: conversations')
@MemoryApiAuth()
@Controller('v4/conversations')
export class ConversationsController {
  constructor(private readonly ingest: DocumentIngestService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'conversations.add', summary: 'Add or update a conversation, turn-aware' })
  @ApiBody({ type: ConversationBody })
  @ApiResponse({ status: 200, type: ConversationResponse })
  @ApiResponse({ status: 400, type: ErrorBody })
  add(@Org() org: string, @MemoryBody() body: ConversationBody): Promise<ConversationResponse> {
    return this.ingest.conversation(org, body);
  }
}
