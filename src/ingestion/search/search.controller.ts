import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { MemoriesService } from '../memories/memories.service';
import { SearchService } from './search.service';

@ApiTags('memory: search')
@ApiBearerAuth()
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
  documents(@Body() body: unknown) {
    return this.search.documentsSearch(body);
  }

  @Post('v4/search')
  @HttpCode(200)
  @ApiOperation({ operationId: 'search.memories', summary: 'Memory, hybrid or document search' })
  memoriesSearch(@Body() body: unknown) {
    return this.search.memorySearch(body);
  }

  @Post('v4/profile')
  @HttpCode(200)
  @ApiOperation({ operationId: 'profile', summary: 'Static and dynamic facts of a container tag, with an optional search' })
  profile(@Body() body: unknown) {
    return this.memories.profile(body, (query) => this.search.memorySearch(query));
  }
}
