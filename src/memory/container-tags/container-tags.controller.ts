import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { MemoryApiAuth } from '../memory-auth.decorator';
import { Org } from '../organizations/org.decorator';
import { IngestionStore } from '../store';

export class ContainerTagDto {
  @ApiProperty() containerTag!: string;
  @ApiProperty({ type: 'integer', description: 'Documents whose containerTag it is' }) documents!: number;
  @ApiProperty({ type: 'integer', description: 'Latest, not forgotten memories under it' }) memories!: number;
}

export class ContainerTagsResponse {
  @ApiProperty({ type: [ContainerTagDto] }) containerTags!: ContainerTagDto[];
}

/** The container tags in use (Keel addition): what the console offers instead of a blank field. */
@ApiTags('memory: container tags')
@MemoryApiAuth()
@ApiResponse({ status: 401, type: ErrorBody, description: 'Missing or invalid API key' })
@Controller('v3/container-tags')
export class ContainerTagsController {
  constructor(private readonly store: IngestionStore) {}

  @Get()
  @ApiOperation({
    operationId: 'containerTags.list',
    summary: 'The container tags of the organization\'s documents and memories, with their counts, sorted by tag (Keel addition)',
  })
  @ApiResponse({ status: 200, type: ContainerTagsResponse })
  async list(@Org() org: string): Promise<ContainerTagsResponse> {
    const [documents, memories] = await Promise.all([
      this.store.query<{ tag: string; n: number | string }>(
        'SELECT container_tag AS tag, COUNT(*) AS n FROM memory_document WHERE org_id = ? AND container_tag IS NOT NULL GROUP BY container_tag',
        [org],
      ),
      this.store.query<{ tag: string; n: number | string }>(
        'SELECT container_tag AS tag, COUNT(*) AS n FROM memory_entry WHERE org_id = ? AND is_latest = ? AND is_forgotten = ? GROUP BY container_tag',
        [org, true, false],
      ),
    ]);
    const tags = new Map<string, ContainerTagDto>();
    const entry = (tag: string) => {
      let found = tags.get(tag);
      if (!found) tags.set(tag, (found = { containerTag: tag, documents: 0, memories: 0 }));
      return found;
    };
    for (const row of documents) entry(row.tag).documents = Number(row.n);
    for (const row of memories) entry(row.tag).memories = Number(row.n);
    return {
      containerTags: [...tags.values()].sort((a, b) =>
        a.containerTag < b.containerTag ? -1 : a.containerTag > b.containerTag ? 1 : 0,
      ),
    };
  }
}
