import { Post } from '@nestjs/common';
import { MemoriesService } from '../memories/memories.service';
import { ProfileBody, ProfileResponse, SearchDocumentsBody, SearchDocumentsResponse, SearchMemoriesBody, SearchMemoriesResponse } from './dto/search.dto';
import { SearchService } from './search.service';
import { MemoryController, MemoryOperation } from '../memory-api.decorators';
import { Org } from '../organizations/org.decorator';
import { MemoryBody } from '../validation';

@MemoryController({ tag: 'memory: search', errors: [{ status: 400 }, { status: 401 }] })
export class SearchController {
  constructor(
    private readonly search: SearchService,
    private readonly memories: MemoriesService,
  ) {}

  @Post('v3/search')
  @MemoryOperation('search.documents', 'Chunk search grouped by document', {
    body: SearchDocumentsBody,
    type: SearchDocumentsResponse,
  })
  documents(@Org() org: string, @MemoryBody() body: SearchDocumentsBody): Promise<SearchDocumentsResponse> {
    return this.search.documentsSearch(org, body);
  }

  @Post('v4/search')
  @MemoryOperation('search.memories', 'Memory, hybrid or document search', {
    body: SearchMemoriesBody,
    type: SearchMemoriesResponse,
  })
  memoriesSearch(@Org() org: string, @MemoryBody() body: SearchMemoriesBody): Promise<SearchMemoriesResponse> {
    return this.search.memorySearch(org, body);
  }

  @Post('v4/profile')
  @MemoryOperation('profile', 'Static and dynamic facts of a container tag, with an optional search', {
    body: ProfileBody,
    type: ProfileResponse,
  })
  profile(@Org() org: string, @MemoryBody() body: ProfileBody): Promise<ProfileResponse> {
    return this.memories.profile(org, body, (query) => this.search.memorySearch(org, query));
  }
}
