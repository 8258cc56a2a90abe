import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { MemoriesService } from '../memories/memories.service';
import { ProfileBody, ProfileResponse, SearchDocumentsBody, SearchDocumentsResponse, SearchMemoriesBody, SearchMemoriesResponse } from './dto/search.dto';
import { SearchService } from './search.service';
import { MemoryApiAuth } from '../memory-auth.decorator';

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
  documents(@Body() body: unknown) {
    return this.search.documentsSearch(body);
  }

  @Post('v4/search')
  @HttpCode(200)
  @ApiOperation({ operationId: 'search.memories', summary: 'Memory, hybrid or document search' })
  @ApiBody({ type: SearchMemoriesBody })
  @ApiResponse({ status: 200, type: SearchMemoriesResponse })
  memoriesSearch(@Body() body: unknown) {
    return this.search.memorySearch(body);
  }

  @Post('v4/profile')
  @HttpCode(200)
  @ApiOperation({ operationId: 'profile', summary: 'Static and dynamic facts of a container tag, with an optional search' })
  @ApiBody({ type: ProfileBody })
  @ApiResponse({ status: 200, type: ProfileResponse })
  profile(@Body() body: unknown) {
    return this.memories.profile(body, (query) => this.search.memorySearch(query));
  }
}
