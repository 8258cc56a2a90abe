import { Get } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { MemoryController, MemoryOperation } from '../memory-api.decorators';
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
@MemoryController({
  path: 'v3/container-tags',
  tag: 'memory: container tags',
  errors: [{ status: 401, description: 'Missing or invalid API key' }],
})
export class ContainerTagsController {
  constructor(
    private readonly documents: DocumentRepository,
    private readonly memories: MemoryEntryRepository,
  ) {}

  @Get()
  @MemoryOperation(
    'containerTags.list',
    "The container tags of the organization's documents and memories, with their counts, sorted by tag (Keel addition)",
    { type: ContainerTagsResponse },
  )
  async list(@Org() org: string): Promise<ContainerTagsResponse> {
    const [documents, memories] = await Promise.all([this.documents.countByTag(org), this.memories.countByTag(org)]);
    const tags = [...new Set([...documents.keys(), ...memories.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      containerTags: tags.map((tag) => ({ containerTag: tag, documents: documents.get(tag) ?? 0, memories: memories.get(tag) ?? 0 })),
    };
  }
}
