import { Controller, Post } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { MemoriesService } from '../memories/memories.service';
import { ProfileBody, ProfileResponse, SearchDocumentsBody, SearchDocumentsResponse, SearchMemoriesBody, SearchMemoriesResponse } from './dto/search.dto';
import { SearchService } from './search.service';
import { MemoryApiAuth } from '../memory-auth.decorator';
import { MemoryOperation } from '../memory-operation.decorator';
import { Org } from '../organizations/org.decorator';
import { MemoryBody } from '../validation';

@ApiTags('memory: search')
@MemoryApiAuth()
@ApiResponse({ status: 400, type: ErrorBody })
@ApiResponse({ status: 401, type: ErrorBody })
@Controller()
export class SearchController {
  constructor(
    private readonly search: SearchService,
    private readonly memories: MemoriesService,
  ) {}

  @Post('v3/search')
  @MemoryOperation('search.documents', 'Chunk search grouped by document', { body: SearchDocumentsBody, type: SearchDocumentsResponse })
  documents(@Org() org: string, @MemoryBody() body: SearchDocumentsBody): Promise<SearchDocumentsResponse> {
    return this.search.documentsSearch(org, body);
  }

  @Post('v4/search')
  @MemoryOperation('search.memories', 'Memory, hybrid or document search', { body: SearchMemoriesBody, type: SearchMemoriesResponse })
  memoriesSearch(@Org() org: string, @MemoryBody() body: SearchMemoriesBody): Promise<SearchMemoriesResponse> {
    return this.search.memorySearch(org, body);
  }

  @Post('v4/profile')
  @MemoryOperation('profile', 'Static and dynamic facts of a container tag, with an optional search', { body: ProfileBody, type: ProfileResponse })
  profile(@Org() org: string, @MemoryBody() body: ProfileBody): Promise<ProfileResponse> {
    return this.memories.profile(org, body, (query) => this.search.memorySearch(org, query));
  }
}
