import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Swagger shapes of the memory surface; requests are validated by the services (naming each field). */
export class ErrorBody {
  @ApiProperty() error!: string;
  @ApiPropertyOptional() details?: string;
}

export class IngestResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done', 'failed'] }) status!: string;
}

export class AddDocumentBody {
  @ApiProperty({ description: 'Text, markdown, HTML, JSON or a URL (max 1 MB)' }) content!: string;
  @ApiPropertyOptional({ maxLength: 100, pattern: '^[A-Za-z0-9_:.-]+$' }) containerTag?: string;
  @ApiPropertyOptional({ type: [String], deprecated: true }) containerTags?: string[];
  @ApiPropertyOptional({ maxLength: 255 }) customId?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ maxLength: 1500 }) entityContext?: string;
  @ApiPropertyOptional({ enum: ['memory', 'superrag'] }) taskType?: string;
  @ApiPropertyOptional({ enum: ['dynamic', 'instant'] }) dreaming?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) filterByMetadata?: Record<string, unknown>;
}

export class BatchBody {
  @ApiProperty({ description: '1 to 600 documents (objects or strings)', type: 'array', items: {} }) documents!: unknown[];
  @ApiPropertyOptional() containerTag?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ enum: ['dynamic', 'instant'] }) dreaming?: string;
}

export class ConversationBody {
  @ApiProperty({ maxLength: 255 }) conversationId!: string;
  @ApiProperty({ type: 'array', items: { type: 'object' } }) messages!: unknown[];
  @ApiPropertyOptional({ type: [String] }) containerTags?: string[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) metadata?: Record<string, unknown>;
}

export class ConversationResponse extends IngestResponse {
  @ApiProperty() conversationId!: string;
}

export class BatchItemResult {
  @ApiProperty({ description: 'Empty when the item was refused' }) id!: string;
  @ApiProperty({ description: 'The document status, or `error`' }) status!: string;
  @ApiPropertyOptional() error?: string;
  @ApiPropertyOptional() details?: string;
}

export class BatchResponse {
  @ApiProperty({ type: [BatchItemResult], description: 'One result per item, in order' }) results!: BatchItemResult[];
  @ApiProperty({ type: 'integer' }) success!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
}

export class ListDocumentsBody {
  @ApiPropertyOptional({ type: [String] }) containerTags?: string[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Metadata filter {AND|OR: [...]}, or the same as a JSON string' }) filters?: Record<string, unknown> | string;
  @ApiPropertyOptional() includeContent?: boolean;
  @ApiPropertyOptional({ type: 'integer', minimum: 1 }) limit?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 1 }) page?: number;
  @ApiPropertyOptional({ enum: ['createdAt', 'updatedAt'] }) sort?: string;
  @ApiPropertyOptional({ enum: ['asc', 'desc'] }) order?: string;
  @ApiPropertyOptional() filepath?: string;
  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: ['queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done', 'failed'] }, maxItems: 20, description: 'Keel addition: only documents in these statuses' }) statuses?: string[];
  @ApiPropertyOptional({ type: [String], maxItems: 20, description: 'Keel addition: only documents of these types (text, webpage, pdf, …)' }) types?: string[];
  @ApiPropertyOptional({ format: 'date-time', description: 'Keel addition: only documents created at or after this time' }) createdAfter?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Keel addition: only documents created before this time' }) createdBefore?: string;
}

/** A document as lists show it. */
export class DocumentSummary {
  @ApiProperty() id!: string;
  @ApiProperty({ type: 'string', nullable: true }) customId!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) connectionId!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) title!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) summary!: string | null;
  @ApiProperty() type!: string;
  @ApiProperty({ enum: ['queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done', 'failed'] }) status!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ type: 'string', nullable: true }) filepath!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) url!: string | null;
  @ApiProperty({ type: [String] }) containerTags!: string[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'With includeContent' }) content?: string | null;
  @ApiPropertyOptional({ description: 'Keel addition: why the document failed (failed documents only)' }) error?: string;
}

export class DocumentPagination {
  @ApiProperty({ type: 'integer' }) currentPage!: number;
  @ApiProperty({ type: 'integer' }) limit!: number;
  @ApiProperty({ type: 'integer' }) totalItems!: number;
  @ApiProperty({ type: 'integer' }) totalPages!: number;
}

export class ListDocumentsResponse {
  @ApiProperty({ type: [DocumentSummary], description: 'The documents (named `memories` by the reference)' }) memories!: DocumentSummary[];
  @ApiProperty({ type: DocumentPagination }) pagination!: DocumentPagination;
}

/** `GET /v3/documents/{id}`: the whole document with its pipeline state. */
export class DocumentDetail extends DocumentSummary {
  @ApiProperty({ type: 'string', nullable: true }) declare content: string | null;
  @ApiProperty({ nullable: true, description: 'Conversation messages' }) raw!: unknown;
  @ApiProperty({ type: 'string', nullable: true }) source!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) ogImage!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) spatialPoint!: null;
  @ApiProperty({ enum: ['memory', 'superrag'] }) taskType!: string;
  @ApiProperty({ enum: ['dreaming', 'done'] }) dreamingStatus!: string;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'Memories extracted from it' }) memories?: Record<string, unknown>[];
}

export class ProcessingDocument {
  @ApiProperty() id!: string;
  @ApiProperty({ type: 'string', nullable: true }) customId!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) title!: string | null;
  @ApiProperty() type!: string;
  @ApiProperty() status!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ type: [String] }) containerTags!: string[];
}

export class ProcessingResponse {
  @ApiProperty({ type: [ProcessingDocument], description: 'The oldest 1000 unfinished documents' }) documents!: ProcessingDocument[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
}

export class DocumentChunk {
  @ApiProperty() id!: string;
  @ApiProperty({ type: 'integer' }) position!: number;
  @ApiProperty({ type: 'integer' }) index!: number;
  @ApiProperty() content!: string;
  @ApiProperty() type!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: '{startOffset, endOffset}' }) metadata!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class ChunksResponse {
  @ApiProperty() documentId!: string;
  @ApiProperty({ type: [DocumentChunk] }) chunks!: DocumentChunk[];
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class UpdateDocumentBody {
  @ApiPropertyOptional({ description: 'New content: the document is reprocessed' }) content?: string;
  @ApiPropertyOptional() containerTag?: string;
  @ApiPropertyOptional({ type: [String] }) containerTags?: string[];
  @ApiPropertyOptional() customId?: string;
  @ApiPropertyOptional() filepath?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ enum: ['memory', 'superrag'] }) taskType?: string;
}

export class DeleteBulkBody {
  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: 100, description: 'Ids or customIds' }) ids?: string[];
  @ApiPropertyOptional({ type: [String] }) containerTags?: string[];
  @ApiPropertyOptional({ description: 'A file path, or a folder ending in /' }) filepath?: string;
}

export class DeleteBulkError {
  @ApiProperty() id!: string;
  @ApiProperty() error!: string;
}

export class DeleteBulkResponse {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: 'integer' }) deletedCount!: number;
  @ApiPropertyOptional({ type: [DeleteBulkError] }) errors?: DeleteBulkError[];
  @ApiPropertyOptional({ type: [String] }) containerTags?: string[];
}
