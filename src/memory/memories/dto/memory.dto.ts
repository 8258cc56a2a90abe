import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { issue } from '../../../common/errors';
import { checkRequest, CrossFieldRule, ParsedField } from '../../../common/validation/request-fields';
import type { Metadata } from '../../documents/memory-document.entity';
import type { FilterExpression } from '../../search/metadata-filter';
import { DocumentPagination } from '../../documents/dto/document.dto';
import { METADATA } from '../../search/dto/search.dto';
import { ContainerTags, Filters, Flag, IsoDate, LIMITS, MetadataField, Mixable, Num, OneOf, Tag, Text } from '../../validation';

/** Requests of `/v4/memories*` and `/v4/profile/buckets` (checked by MemoryBody from these declarations) and answers. */
class NewMemory {
  @Text({}, { required: true, min: 1, max: LIMITS.memoryContentLength }) content!: string;
  @IsoDate({ description: 'Forget the memory after this time' }) forgetAfter?: string;
  @Flag() isStatic?: boolean;
  @MetadataField(METADATA) metadata?: Metadata;
  @Text() forgetReason?: string;
}

/**
 * `memories`: 1 to 100 new memories, each checked as NewMemory (a non-object as an empty one) under its
 * index. Every item is checked, however many: the answer counts the issues it does not show.
 */
const NewMemories = (api: ApiPropertyOptions) =>
  ParsedField(api, 'newMemories', (value, _body, at) => {
    const items = Array.isArray(value) ? (value as unknown[]) : [];
    const issues = !Array.isArray(value) || items.length < 1 || items.length > 100 ? [issue(at, 'must hold 1 to 100 memories')] : [];
    const parsed: NewMemory[] = [];
    for (let i = 0; i < items.length; i++) {
      const m = items[i];
      const item = checkRequest(NewMemory, m && typeof m === 'object' && !Array.isArray(m) ? m : {}, [...at, i]);
      for (const one of item.issues) issues.push(one);
      parsed.push(item.body);
    }
    return { issues, value: parsed };
  });

export class CreateMemoriesBody {
  @Tag({}, { required: true }) containerTag!: string;
  @NewMemories({ type: [NewMemory], minItems: 1, maxItems: 100 }) memories!: NewMemory[];
}

class CreatedMemory {
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
  @Tag() containerTag?: string;
  @ContainerTags({ description: 'At least one tag, here or as containerTag' }, { required: true }) containerTags?: string[];
  @Filters() filters?: FilterExpression;
  @Num({ default: 10 }, { min: 1, max: LIMITS.listLimit, integer: true }) limit?: number;
  @Num({ default: 1 }, { min: 1, max: LIMITS.page, integer: true }) page?: number;
  @OneOf(['createdAt', 'updatedAt'] as const) sort?: 'createdAt' | 'updatedAt';
  @OneOf(['asc', 'desc'] as const) order?: 'asc' | 'desc';
}

/**
 * The memory a write names: by `id`, or by its exact current text (`content`), within a container tag;
 * after the fields of `Base` (the write's own). "id or content is required" is a rule across the two,
 * checked after every field.
 */
function SelectsMemory<Base extends Mixable>(Base: Base = class {} as Base) {
  @CrossFieldRule((body: { id?: unknown; content?: unknown }) =>
    !(typeof body.id === 'string' && body.id) && !(typeof body.content === 'string' && body.content) ? [issue(['id'], 'id or content is required')] : [],
  )
  class MemorySelection extends Base {
    @Tag({}, { required: true }) containerTag!: string;
    @Text({ description: 'The memory (or `content`)' }, { min: 1 }) id?: string;
    @Text({ description: 'Its exact current text (or `id`)' }, { min: 1 }) content?: string;
  }
  return MemorySelection;
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
  @ApiProperty({ type: 'string', enum: ['updates', 'extends', 'derives'], nullable: true, description: 'Keel addition: how this version relates to its parent' })
  relation!: string | null;
}

class MemoryEntryView extends MemoryView {
  @ApiProperty({ description: 'The container tag' }) spaceId!: string;
  @ApiProperty() orgId!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  memoryRelations!: Record<string, string>;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) temporalContext!: null;
  @ApiProperty({ type: [MemoryView] }) history!: MemoryView[];
  @ApiProperty({ type: [String] }) documentIds!: string[];
}

/** The same fields as the documents list's pagination (its own name in /doc). */
class Pagination extends DocumentPagination {}

export class ListMemoriesResponse {
  @ApiProperty({ type: [MemoryEntryView] }) memoryEntries!: MemoryEntryView[];
  @ApiProperty({ type: Pagination }) pagination!: Pagination;
}

class NewVersion {
  @Text({}, { required: true, min: 1, max: LIMITS.memoryContentLength }) newContent!: string;
  @MetadataField(METADATA) metadata?: Metadata;
}

export class UpdateMemoryBody extends SelectsMemory(NewVersion) {
  /** Null clears it; absent keeps the current one. */
  @IsoDate({ description: 'Forget the memory after this time; null clears it, absent keeps it' }, { clearable: true }) forgetAfter?: string | null;
  /** Absent or null keeps the current one. */
  @Text({ nullable: true, description: 'Absent or null keeps the current one' }) forgetReason?: string;
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

class ForgetReason {
  @Text() reason?: string;
}

export class ForgetMemoryBody extends SelectsMemory(ForgetReason) {}

export class ForgetMemoryResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: [true] }) forgotten!: true;
}

/** The forgotten memory to restore. */
export class RestoreMemoryBody extends SelectsMemory() {}

export class RestoreMemoryResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: [false] }) forgotten!: false;
}

export class ProfileBucketsBody {
  @Tag({}, { required: true }) containerTag!: string;
}

class ProfileBucket {
  @ApiProperty() key!: string;
  @ApiProperty() description!: string;
}

export class ProfileBucketsResponse {
  @ApiProperty({ type: [ProfileBucket] }) buckets!: ProfileBucket[];
}
