import { Controller, Get } from '@nestjs/common';
import { ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { MemoryApiAuth } from '../memory-auth.decorator';
import { MemoryOperation } from '../memory-operation.decorator';
import { Org } from '../organizations/org.decorator';
import { DocumentRepository } from '../documents/document.repository';
import { MemoryEntryRepository } from '../memories/memory-entry.repository';

class ContainerTagDto {
  @ApiProperty() containerTag!: string;
  @ApiProperty({ type: 'integer', description: 'Documents whose containerTag it is' }) documents!: number;
  @ApiProperty({ type: 'integer', description: 'Latest, not forgotten memories under it' }) memories!: number;
}

class ContainerTagsResponse {
  @ApiProperty({ type: [ContainerTagDto] }) containerTags!: ContainerTagDto[];
}

/** The container tags in use (Keel addition): what the console offers instead of a blank field. */
@ApiTags('memory: container tags')
@MemoryApiAuth()
@ApiResponse({ status: 401, type: ErrorBody, description: 'Missing or invalid API key' })
@Controller('v3/container-tags')
export class ContainerTagsController {
  constructor(
    private readonly documents: DocumentRepository,
    private readonly memories: MemoryEntryRepository,
  ) {}

  @Get()
  @MemoryOperation('containerTags.list', "The container tags of the organization's documents and memories, with their counts, sorted by tag (Keel addition)", {
    type: ContainerTagsResponse,
  })
  async list(@Org() org: string): Promise<ContainerTagsResponse> {
    const [documents, memories] = await Promise.all([this.documents.countByTag(org), this.memories.countByTag(org)]);
    const tags = [...new Set([...documents.keys(), ...memories.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      containerTags: tags.map((tag) => ({ containerTag: tag, documents: documents.get(tag) ?? 0, memories: memories.get(tag) ?? 0 })),
    };
  }
}
