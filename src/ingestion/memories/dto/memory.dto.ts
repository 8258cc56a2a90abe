import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FILTERS, METADATA } from '../../search/dto/search.dto';

/** Swagger shapes of `/v4/memories*` and `/v4/profile/buckets`; the service validates. */
export class NewMemory {
  @ApiProperty({ maxLength: 10000 }) content!: string;
  @ApiPropertyOptional() isStatic?: boolean;
  @ApiPropertyOptional(METADATA) metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ format: 'date-time', description: 'Forget the memory after this time' }) forgetAfter?: string;
  @ApiPropertyOptional() forgetReason?: string;
}

export class CreateMemoriesBody {
  @ApiProperty() containerTag!: string;
  @ApiProperty({ type: [NewMemory], minItems: 1, maxItems: 100 }) memories!: NewMemory[];
}

export class CreatedMemory {
  @ApiProperty() id!: string;
  @ApiProperty() memory!: string;
  @ApiProperty() isStatic!: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) forgetAfter!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) forgetReason!: string | null;
  @ApiProperty(METADATA) metadata!: Record<string, unknown>;
}

export class CreateMemoriesResponse {
  @ApiProperty({ type: 'string', nullable: true }) documentId!: string | null;
  @ApiProperty({ type: [CreatedMemory] }) memories!: CreatedMemory[];
}

export class ListMemoriesBody {
  @ApiPropertyOptional() containerTag?: string;
  @ApiPropertyOptional({ type: [String] }) containerTags?: string[];
  @ApiPropertyOptional(FILTERS) filters?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1100, default: 10 }) limit?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1 }) page?: number;
  @ApiPropertyOptional({ enum: ['createdAt', 'updatedAt'] }) sort?: string;
  @ApiPropertyOptional({ enum: ['asc', 'desc'] }) order?: string;
}

export class MemoryView {
  @ApiProperty() id!: string;
  @ApiProperty() memory!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty() isLatest!: boolean;
  @ApiProperty() isForgotten!: boolean;
  @ApiProperty() isStatic!: boolean;
  @ApiProperty() isInference!: boolean;
  @ApiProperty({ type: 'integer' }) version!: number;
  @ApiProperty({ type: 'integer' }) sourceCount!: number;
  @ApiProperty(METADATA) metadata!: Record<string, unknown>;
  @ApiProperty({ type: 'string', nullable: true }) parentMemoryId!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) rootMemoryId!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) forgetAfter!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) forgetReason!: string | null;
  @ApiProperty({ type: 'string', enum: ['updates', 'extends', 'derives'], nullable: true, description: 'Keel addition: how this version relates to its parent' }) relation!: string | null;
}

export class MemoryEntryView extends MemoryView {
  @ApiProperty({ description: 'The container tag' }) spaceId!: string;
  @ApiProperty() orgId!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) memoryRelations!: Record<string, string>;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) temporalContext!: null;
  @ApiProperty({ type: [MemoryView] }) history!: MemoryView[];
  @ApiProperty({ type: [String] }) documentIds!: string[];
}

export class Pagination {
  @ApiProperty({ type: 'integer' }) currentPage!: number;
  @ApiProperty({ type: 'integer' }) limit!: number;
  @ApiProperty({ type: 'integer' }) totalItems!: number;
  @ApiProperty({ type: 'integer' }) totalPages!: number;
}

export class ListMemoriesResponse {
  @ApiProperty({ type: [MemoryEntryView] }) memoryEntries!: MemoryEntryView[];
  @ApiProperty({ type: Pagination }) pagination!: Pagination;
}

export class UpdateMemoryBody {
  @ApiProperty() containerTag!: string;
  @ApiProperty({ maxLength: 10000 }) newContent!: string;
  @ApiPropertyOptional({ description: 'The memory to update (or `content`)' }) id?: string;
  @ApiPropertyOptional({ description: 'The current text of the memory to update (or `id`)' }) content?: string;
  @ApiPropertyOptional(METADATA) metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'string', format: 'date-time', nullable: true }) forgetAfter?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true }) forgetReason?: string | null;
}

export class UpdateMemoryResponse {
  @ApiProperty() id!: string;
  @ApiProperty() memory!: string;
  @ApiProperty({ type: 'integer' }) version!: number;
  @ApiProperty({ type: 'string', nullable: true }) parentMemoryId!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) rootMemoryId!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) forgetAfter!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) forgetReason!: string | null;
  @ApiProperty(METADATA) metadata!: Record<string, unknown>;
}

export class ForgetMemoryBody {
  @ApiProperty() containerTag!: string;
  @ApiPropertyOptional({ description: 'The memory to forget (or `content`)' }) id?: string;
  @ApiPropertyOptional({ description: 'Its exact text (or `id`)' }) content?: string;
  @ApiPropertyOptional() reason?: string;
}

export class ForgetMemoryResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: [true] }) forgotten!: true;
}

export class RestoreMemoryBody {
  @ApiProperty() containerTag!: string;
  @ApiProperty({ description: 'The forgotten memory to restore' }) id!: string;
}

export class RestoreMemoryResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: [false] }) forgotten!: false;
}

export class ProfileBucketsBody {
  @ApiProperty() containerTag!: string;
}

export class ProfileBucket {
  @ApiProperty() key!: string;
  @ApiProperty() description!: string;
}

export class ProfileBucketsResponse {
  @ApiProperty({ type: [ProfileBucket] }) buckets!: ProfileBucket[];
}
