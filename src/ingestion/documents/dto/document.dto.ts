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
