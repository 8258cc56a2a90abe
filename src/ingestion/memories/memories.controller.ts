import { Body, Controller, Delete, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { MemoriesService } from './memories.service';

@ApiTags('memory: memories')
@ApiBearerAuth()
@ApiResponse({ status: 400, type: ErrorBody })
@ApiResponse({ status: 401, type: ErrorBody })
@Controller('v4/memories')
export class MemoriesController {
  constructor(private readonly memories: MemoriesService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ operationId: 'memories.create', summary: 'Create memories directly, skipping the pipeline' })
  create(@Body() body: unknown) {
    return this.memories.create(body);
  }

  @Post('list')
  @HttpCode(200)
  @ApiOperation({ operationId: 'memories.list', summary: 'List latest memories with their history' })
  list(@Body() body: unknown) {
    return this.memories.list(body);
  }

  @Patch()
  @ApiOperation({ operationId: 'memories.updateMemory', summary: 'Versioned update of a memory' })
  @ApiResponse({ status: 404, type: ErrorBody })
  update(@Body() body: unknown) {
    return this.memories.update(body);
  }

  @Delete()
  @ApiOperation({ operationId: 'memories.forget', summary: 'Forget (soft-delete) a memory' })
  @ApiResponse({ status: 404, type: ErrorBody })
  @ApiResponse({ status: 409, type: ErrorBody })
  forget(@Body() body: unknown) {
    return this.memories.forget(body);
  }
}
