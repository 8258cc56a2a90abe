import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { MemoriesService } from '../memories/memories.service';
import { ProfileBody, ProfileResponse, SearchDocumentsBody, SearchDocumentsResponse, SearchMemoriesBody, SearchMemoriesResponse } from './dto/search.dto';
import { SearchService } from './search.service';
import { MemoryApiAuth } from '../memory-auth.decorator';
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
  @HttpCode(200)
  @ApiOperation({ operationId: 'search.documents', summary: 'Chunk search grouped by document' })
  @ApiBody({ type: SearchDocumentsBody })
  @ApiResponse({ status: 200, type: SearchDocumentsResponse })
  documents(@Org() org: string, @MemoryBody() body: SearchDocumentsBody): Promise<SearchDocumentsResponse> {
    return this.search.documentsSearch(org, body);
  }

  @Post('v4/search')
  @HttpCode(200)
  @ApiOperation({ operationId: 'search.memories', summary: 'Memory, hybrid or document search' })
  @ApiBody({ type: SearchMemoriesBody })
  @ApiResponse({ status: 200, type: SearchMemoriesResponse })
  memoriesSearch(@Org() org: string, @MemoryBody() body: SearchMemoriesBody): Promise<SearchMemoriesResponse> {
    return this.search.memorySearch(org, body);
  }

  @Post('v4/profile')
  @HttpCode(200)
  @ApiOperation({ operationId: 'profile', summary: 'Static and dynamic facts of a container tag, with an optional search' })
  @ApiBody({ type: ProfileBody })
  @ApiResponse({ status: 200, type: ProfileResponse })
  profile(@Org() org: string, @MemoryBody() body: ProfileBody): Promise<ProfileResponse> {
    return this.memories.profile(org, body, (query) => this.search.memorySearch(org, query));
  }
}
