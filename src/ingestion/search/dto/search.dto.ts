import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';

/** Swagger shapes of search and profile (the supermemory SDK's params and responses); the services validate. */
export const METADATA: ApiPropertyOptions = { type: 'object', additionalProperties: true, nullable: true };

/** A metadata filter: `{AND: [...]}` or `{OR: [...]}` of conditions `{key, value, filterType?, numericOperator?, negate?, ignoreCase?}` or nested groups. */
export const FILTERS: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: true,
  description: '{AND|OR: [{key, value, filterType?: metadata|numeric|array_contains|string_contains, numericOperator?, negate?, ignoreCase?} | nested group]}',
};

export class SearchDocumentsBody {
  @ApiProperty({ description: 'The query' }) q!: string;
  @ApiPropertyOptional() containerTag?: string;
  @ApiPropertyOptional({ type: [String] }) containerTags?: string[];
  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) chunkThreshold?: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) documentThreshold?: number;
  @ApiPropertyOptional() docId?: string;
  @ApiPropertyOptional(FILTERS) filters?: Record<string, unknown>;
  @ApiPropertyOptional() includeFullDocs?: boolean;
  @ApiPropertyOptional() includeSummary?: boolean;
  @ApiPropertyOptional({ type: 'integer', minimum: 1 }) limit?: number;
  @ApiPropertyOptional() onlyMatchingChunks?: boolean;
  @ApiPropertyOptional() rerank?: boolean;
  @ApiPropertyOptional() rewriteQuery?: boolean;
}

export class ChunkHit {
  @ApiProperty() content!: string;
  @ApiProperty() isRelevant!: boolean;
  @ApiProperty() score!: number;
}

export class DocumentHit {
  @ApiProperty() documentId!: string;
  @ApiProperty({ type: [ChunkHit] }) chunks!: ChunkHit[];
  @ApiProperty() score!: number;
  @ApiProperty({ type: 'string', nullable: true }) title!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) type!: string | null;
  @ApiProperty(METADATA) metadata!: Record<string, unknown> | null;
  @ApiPropertyOptional({ type: 'string', nullable: true }) content?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true }) summary?: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class SearchDocumentsResponse {
  @ApiProperty({ type: [DocumentHit] }) results!: DocumentHit[];
  @ApiProperty({ description: 'Milliseconds' }) timing!: number;
  @ApiProperty() total!: number;
}

export class SearchMemoriesBody {
  @ApiProperty() q!: string;
  @ApiPropertyOptional() containerTag?: string;
  @ApiPropertyOptional({ enum: ['memories', 'hybrid', 'documents'] }) searchMode?: string;
  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) threshold?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 1 }) limit?: number;
  @ApiPropertyOptional(FILTERS) filters?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: '{documents?, relatedMemories?, summaries?, forgottenMemories?, chunks?}' }) include?: Record<string, unknown>;
  @ApiPropertyOptional() aggregate?: boolean;
  @ApiPropertyOptional() rerank?: boolean;
  @ApiPropertyOptional() rewriteQuery?: boolean;
}

export class MemoryHit {
  @ApiProperty() id!: string;
  @ApiPropertyOptional({ description: 'The memory (memory results)' }) memory?: string;
  @ApiPropertyOptional({ description: 'The chunk (document results of hybrid/documents mode)' }) chunk?: string;
  @ApiProperty() similarity!: number;
  @ApiPropertyOptional({ type: 'integer', nullable: true }) version?: number | null;
  @ApiProperty(METADATA) metadata!: Record<string, unknown> | null;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: '{parents?, children?, related?}' }) context?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } }) documents?: Record<string, unknown>[];
}

export class SearchMemoriesResponse {
  @ApiProperty({ type: [MemoryHit] }) results!: MemoryHit[];
  @ApiProperty({ description: 'Milliseconds' }) timing!: number;
  @ApiProperty() total!: number;
}

export class ProfileBody {
  @ApiProperty() containerTag!: string;
  @ApiPropertyOptional({ description: 'Also search the memories of the tag' }) q?: string;
  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) threshold?: number;
  @ApiPropertyOptional(FILTERS) filters?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'array', items: { enum: ['static', 'dynamic', 'buckets'] }, description: 'Parts of the profile to answer (default static and dynamic)' }) include?: string[];
  @ApiPropertyOptional({ type: [String], description: 'Bucket keys to sort the facts into' }) buckets?: string[];
}

export class Profile {
  @ApiPropertyOptional({ type: [String], description: 'Lasting facts' }) static?: string[];
  @ApiPropertyOptional({ type: [String], description: 'Recent facts' }) dynamic?: string[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }) buckets?: Record<string, string[]>;
}

export class ProfileResponse {
  @ApiProperty({ type: Profile }) profile!: Profile;
  @ApiPropertyOptional({ type: SearchMemoriesResponse }) searchResults?: SearchMemoriesResponse;
}
