import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import type { FilterExpression } from '../metadata-filter';
import { isJsonObject } from '../../../common/validation/request-fields';
import { ContainerTags, Filters, Flag, List, MemoryField, Num, OneOf, Tag, Text } from '../../validation';

/** Search and profile requests (checked by MemoryBody from these declarations) and answers: the supermemory SDK's params and responses. */
export const METADATA: ApiPropertyOptions = { type: 'object', additionalProperties: true, nullable: true };

/** `include` of `/v4/search`: an object (null counts as absent). */
const SearchIncludeField = (api: ApiPropertyOptions) =>
  MemoryField<SearchInclude>(api, 'searchInclude', (check, value, at) => {
    if (value !== undefined && (typeof value !== 'object' || Array.isArray(value))) check.fail(at, 'must be an object');
    return isJsonObject(value) ? (value) : undefined;
  });

export class SearchDocumentsBody {
  @Text({ description: 'The query' }, { required: true, min: 1 }) q!: string;
  @Tag() containerTag?: string;
  @ContainerTags() containerTags?: string[];
  @Num({}, { min: 0, max: 1 }) chunkThreshold?: number;
  /** Accepted for the SDK; not used. */
  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) documentThreshold?: number;
  @Text({}, { max: 255 }) docId?: string;
  @Filters() filters?: FilterExpression;
  @Flag() includeFullDocs?: boolean;
  @Flag() includeSummary?: boolean;
  @Num({}, { min: 1, max: 100, integer: true }) limit?: number;
  @Flag() onlyMatchingChunks?: boolean;
  /** Accepted for the SDK; not used. */
  @ApiPropertyOptional() rerank?: boolean;
  @ApiPropertyOptional() rewriteQuery?: boolean;
}

class ChunkHit {
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

/** What `include` asks `/v4/search` to add to its results. */
export interface SearchInclude {
  documents?: unknown;
  relatedMemories?: unknown;
  summaries?: unknown;
  forgottenMemories?: unknown;
  chunks?: unknown;
}

export class SearchMemoriesBody {
  @Text({}, { required: true, min: 1 }) q!: string;
  @Tag() containerTag?: string;
  @ContainerTags() containerTags?: string[];
  @OneOf(['memories', 'hybrid', 'documents'] as const) searchMode?: 'memories' | 'hybrid' | 'documents';
  @Num({}, { min: 0, max: 1 }) threshold?: number;
  @Num({}, { min: 1, max: 100, integer: true }) limit?: number;
  /** Accepted for the SDK (checked, not used). */
  @Flag() rerank?: boolean;
  @Flag() rewriteQuery?: boolean;
  @Flag() aggregate?: boolean;
  @Filters() filters?: FilterExpression;
  @SearchIncludeField({ type: 'object', additionalProperties: true, description: '{documents?, relatedMemories?, summaries?, forgottenMemories?, chunks?}' })
  include?: SearchInclude;
}

export class MemoryHit {
  @ApiProperty() id!: string;
  @ApiPropertyOptional({ description: 'The memory (memory results)' }) memory?: string;
  @ApiPropertyOptional({ description: 'The chunk (document results of hybrid/documents mode)' }) chunk?: string;
  @ApiProperty() similarity!: number;
  @ApiPropertyOptional({ type: 'integer', nullable: true }) version?: number | null;
  @ApiProperty(METADATA) metadata!: Record<string, unknown> | null;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiPropertyOptional({ description: 'Memory results: always false (memories are not aggregated)' }) isAggregated?: boolean;
  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'Document results: the file path of the chunk\'s document' }) filepath?: string | null;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: '{parents?, children?, related?}' }) context?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } }) documents?: Record<string, unknown>[];
}

export class SearchMemoriesResponse {
  @ApiProperty({ type: [MemoryHit] }) results!: MemoryHit[];
  @ApiProperty({ description: 'Milliseconds' }) timing!: number;
  @ApiProperty() total!: number;
}

export const PROFILE_PARTS = ['static', 'dynamic', 'buckets'] as const;
export type ProfilePart = (typeof PROFILE_PARTS)[number];

export class ProfileBody {
  @Tag({}, { required: true }) containerTag!: string;
  @Text({ description: 'Also search the memories of the tag' }, { min: 1 }) q?: string;
  @Num({}, { min: 0, max: 1 }) threshold?: number;
  @Filters() filters?: FilterExpression;
  @List({ type: 'array', items: { enum: [...PROFILE_PARTS] }, description: 'Parts of the profile to answer (default static and dynamic)' }, (check, v, at) => check.oneOf(v, at, PROFILE_PARTS))
  include?: ProfilePart[];
  @List({ type: [String], description: 'Bucket keys to sort the facts into' }, (check, v, at) => {
    const key = check.string(v, at, { min: 1, max: 100 });
    if (key !== undefined && !/^[a-zA-Z0-9_:-]+$/.test(key)) check.fail(at, 'must contain only letters, digits, "_", ":" and "-"');
    return key;
  })
  buckets?: string[];
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
