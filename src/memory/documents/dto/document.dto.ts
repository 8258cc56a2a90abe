import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { issue } from '../../../common/errors';
import { CrossFieldRule } from '../../../common/validation/request-fields';
import type { MemoryView } from '../../memories/dto/memory.dto';
import type { FilterExpression } from '../../search/metadata-filter';
import {
  containerTagsOf,
  ContainerTags,
  CustomId,
  DocumentContent,
  Filters,
  Flag,
  IsoDate,
  LIMITS,
  List,
  MetadataField,
  Mixable,
  Num,
  OneOf,
  Tag,
  Text,
} from '../../validation';
import type { ConversationMessage } from '../conversation';
import { DOCUMENT_STATUSES } from '../memory-document.entity';
import type { DocumentStatus, Metadata } from '../memory-document.entity';
import { Absent, BatchItem, BatchItems, BulkIds, ConversationId, ConversationIdAlias, Messages } from './document-rules';

/** The memory surface's document requests (checked by MemoryBody from these declarations) and answers. */
export class ErrorBody {
  @ApiProperty() error!: string;
  @ApiPropertyOptional() details?: string;
}

export class IngestResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: DOCUMENT_STATUSES }) status!: string;
}

const TASK_TYPES = ['memory', 'superrag'] as const;
const DREAMING = ['dynamic', 'instant'] as const;

/**
 * The fields every document write shares (add, update, batch items and batch defaults), checked in
 * this order after those of `Base` (the write's own `content`).
 */
function DocumentFields<Base extends Mixable>(Base: Base = class {} as Base) {
  class DocumentFieldsBody extends Base {
    @Tag() containerTag?: string;
    @ContainerTags({ deprecated: true }) containerTags?: string[];
    @Text({}, { max: LIMITS.entityContextLength }) entityContext?: string;
    @IsoDate({ description: 'When the document was written' }, { max: 64 }) documentDate?: string;
    @CustomId() customId?: string;
    @MetadataField() metadata?: Metadata;
    @OneOf(TASK_TYPES) taskType?: (typeof TASK_TYPES)[number];
    @OneOf(DREAMING) dreaming?: (typeof DREAMING)[number];
    @MetadataField() filterByMetadata?: Metadata;
    @Text({}, { max: 1024 }) filepath?: string;
    @Text({}, { max: 1000 }) title?: string;
  }
  return DocumentFieldsBody;
}

/** The shared fields of a checked document write (ingestFields turns them into what the ingest service takes). */
export type DocumentFieldValues = InstanceType<ReturnType<typeof DocumentFields>>;

class AddContent {
  @DocumentContent({ description: 'Text, markdown, HTML, JSON or a URL (max 1 MB)' }, { tooLarge: 'refuse' }) content!: string;
}

export class AddDocumentBody extends DocumentFields(AddContent) {}

class BatchItemContent {
  @DocumentContent({ description: 'Text, markdown, HTML, JSON or a URL (max 1 MB)' }) content!: string;
}

/** One item of a batch (a string is its content); checked one by one, so a bad item fails alone. */
class BatchDocument extends DocumentFields(BatchItemContent) {}

/** The batch's own fields are the items' defaults (all but customId and title, which are checked and not used). */
export class BatchBody extends DocumentFields() {
  @Absent('must be absent or null on a batch; put content in documents[]', 'Refused unless null: content goes in documents[]') content?: null;
  @BatchItems(BatchDocument, { description: '1 to 600 documents (objects or strings)', type: 'array', items: {} }) documents!: BatchItem<BatchDocument>[];
}

export const FILE_TYPES = ['text', 'pdf', 'tweet', 'google_doc', 'google_slide', 'google_sheet', 'image', 'video', 'notion_doc', 'webpage', 'onedrive'] as const;

/**
 * The text fields of a file upload, once decoded from the multipart form (the form's /doc schema is
 * the handler's ApiBody: a file and text fields).
 */
@CrossFieldRule((body: UploadFileFields) =>
  (body.fileType === 'image' || body.fileType === 'video') && !(typeof body.mimeType === 'string' && body.mimeType) ? [issue(['mimeType'], `is required when fileType is ${body.fileType}`)] : [],
)
export class UploadFileFields extends DocumentFields() {
  @OneOf(FILE_TYPES) fileType?: (typeof FILE_TYPES)[number];
  @Text({}, { max: 255 }) mimeType?: string;
}

/** The upload's multipart form as /doc shows it: the file beside the fields (checkUploadForm checks both). */
export class UploadFileForm extends UploadFileFields {
  @ApiProperty({ type: 'string', format: 'binary', description: `The file, at most ${LIMITS.fileBytes / 1024 / 1024} MB` })
  file!: unknown;
}

export class ConversationBody {
  @ConversationId({ maxLength: 255 }) conversationId!: string;
  @ConversationIdAlias({ description: 'The same as conversationId (when conversationId is not sent)' }) customId?: string;
  @Messages({ type: 'array', items: { type: 'object' } }) messages!: ConversationMessage[];
  @Tag() containerTag?: string;
  @ContainerTags() containerTags?: string[];
  @MetadataField({}, { arrays: false }) metadata?: Metadata;
  @Text({}, { max: LIMITS.entityContextLength }) entityContext?: string;
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
  @ApiProperty({ type: [BatchItemResult], description: 'One result per item, in order' })
  results!: BatchItemResult[];
  @ApiProperty({ type: 'integer' }) success!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
}

export class ListDocumentsBody {
  @Tag() containerTag?: string;
  @ContainerTags() containerTags?: string[];
  @Filters({ type: 'object', additionalProperties: true, description: 'Metadata filter {AND|OR: [...]}, or the same as a JSON string' }) filters?: FilterExpression;
  @Flag() includeContent?: boolean;
  @Num({}, { min: 1, max: LIMITS.listLimit, integer: true }) limit?: number;
  @Num({}, { min: 1, max: LIMITS.page, integer: true }) page?: number;
  @OneOf(['createdAt', 'updatedAt'] as const) sort?: 'createdAt' | 'updatedAt';
  @OneOf(['asc', 'desc'] as const) order?: 'asc' | 'desc';
  @Text() filepath?: string;
  @List({ type: 'array', items: { type: 'string', enum: [...DOCUMENT_STATUSES] }, description: 'Keel addition: only documents in these statuses' }, (check, v, at) => check.oneOf(v, at, DOCUMENT_STATUSES))
  statuses?: DocumentStatus[];
  @List({ type: [String], description: 'Keel addition: only documents of these types (text, webpage, pdf, …)' }, (check, v, at) => check.string(v, at, { required: true, min: 1, max: 32 }))
  types?: string[];
  @IsoDate({ description: 'Keel addition: only documents created at or after this time' }, { min: 1, max: 64 }) createdAfter?: string;
  @IsoDate({ description: 'Keel addition: only documents created before this time' }, { min: 1, max: 64 }) createdBefore?: string;
}

/** A document as lists show it. */
export class DocumentSummary {
  @ApiProperty() id!: string;
  @ApiProperty({ type: 'string', nullable: true }) customId!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) connectionId!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) title!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) summary!: string | null;
  @ApiProperty() type!: string;
  @ApiProperty({ enum: DOCUMENT_STATUSES }) status!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ type: 'string', nullable: true }) filepath!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) url!: string | null;
  @ApiProperty({ type: [String] }) containerTags!: string[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'With includeContent' })
  content?: string | null;
  @ApiPropertyOptional({ description: 'Keel addition: why the document failed (failed documents only)' })
  error?: string;
}

export class DocumentPagination {
  @ApiProperty({ type: 'integer' }) currentPage!: number;
  @ApiProperty({ type: 'integer' }) limit!: number;
  @ApiProperty({ type: 'integer' }) totalItems!: number;
  @ApiProperty({ type: 'integer' }) totalPages!: number;
}

export class ListDocumentsResponse {
  @ApiProperty({ type: [DocumentSummary], description: 'The documents (named `memories` by the reference)' })
  memories!: DocumentSummary[];
  @ApiProperty({ type: DocumentPagination }) pagination!: DocumentPagination;
}

/** `GET /v3/documents/{id}`: the whole document with its pipeline state. */
export class DocumentDetail extends DocumentSummary {
  @ApiProperty({ type: 'string', nullable: true }) declare content: string | null;
  @ApiProperty({ nullable: true, description: 'Conversation messages' }) raw!: unknown;
  @ApiProperty({ type: 'string', nullable: true }) source!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) ogImage!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) spatialPoint!: null;
  @ApiProperty({ enum: TASK_TYPES }) taskType!: string;
  @ApiProperty({ enum: ['dreaming', 'done'] }) dreamingStatus!: string;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'Memories extracted from it' })
  memories?: MemoryView[];
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
  @ApiProperty({ type: [ProcessingDocument], description: 'The oldest 1000 unfinished documents' })
  documents!: ProcessingDocument[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
}

export class DocumentChunk {
  @ApiProperty() id!: string;
  @ApiProperty({ type: 'integer' }) position!: number;
  @ApiProperty({ type: 'integer' }) index!: number;
  @ApiProperty() content!: string;
  @ApiProperty() type!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: '{startOffset, endOffset}' })
  metadata!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class ChunksResponse {
  @ApiProperty() documentId!: string;
  @ApiProperty({ type: [DocumentChunk] }) chunks!: DocumentChunk[];
  @ApiProperty({ type: 'integer' }) total!: number;
}

class UpdateContent {
  @DocumentContent({ description: 'New content: the document is reprocessed' }, { required: false }) content?: string;
}

export class UpdateDocumentBody extends DocumentFields(UpdateContent) {}

/** Something to delete: valid ids (which then decide alone), or a tag or path scope. */
const nothingNamed = (body: DeleteBulkBody) =>
  !(Array.isArray(body.ids) && body.ids.length >= 1 && body.ids.length <= 100) && !containerTagsOf(body)?.length && !(typeof body.filepath === 'string' && body.filepath);

@CrossFieldRule((body: DeleteBulkBody) => (nothingNamed(body) ? [issue(['ids'], 'ids or containerTags is required')] : []))
export class DeleteBulkBody {
  @BulkIds({ type: [String], minItems: 1, maxItems: 100, description: 'Ids or customIds' }) ids?: string[];
  @Tag() containerTag?: string;
  @ContainerTags() containerTags?: string[];
  @Text({ description: 'A file path, or a folder ending in /' }) filepath?: string;
}

class DeleteBulkError {
  @ApiProperty() id!: string;
  @ApiProperty() error!: string;
}

export class DeleteBulkResponse {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: 'integer' }) deletedCount!: number;
  @ApiPropertyOptional({ type: [DeleteBulkError] }) errors?: DeleteBulkError[];
  @ApiPropertyOptional({ type: [String] }) containerTags?: string[];
}
