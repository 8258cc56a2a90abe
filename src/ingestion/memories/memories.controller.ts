import { Body, Controller, Delete, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import {
  CreateMemoriesBody,
  CreateMemoriesResponse,
  ForgetMemoryBody,
  ForgetMemoryResponse,
  ListMemoriesBody,
  ListMemoriesResponse,
  RestoreMemoryBody,
  RestoreMemoryResponse,
  UpdateMemoryBody,
  UpdateMemoryResponse,
} from './dto/memory.dto';
import { MemoriesService } from './memories.service';
import { MemoryApiAuth } from '../memory-auth.decorator';

@ApiTags('memory: memories')
@MemoryApiAuth()
@ApiResponse({ status: 400, type: ErrorBody })
@ApiResponse({ status: 401, type: ErrorBody })
@Controller('v4/memories')
export class MemoriesController {
  constructor(private readonly memories: MemoriesService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ operationId: 'memories.create', summary: 'Create memories directly, skipping the pipeline' })
  @ApiBody({ type: CreateMemoriesBody })
  @ApiResponse({ status: 201, type: CreateMemoriesResponse })
  create(@Body() body: unknown) {
    return this.memories.create(body);
  }

  @Post('list')
  @HttpCode(200)
  @ApiOperation({ operationId: 'memories.list', summary: 'List latest memories with their history' })
  @ApiBody({ type: ListMemoriesBody })
  @ApiResponse({ status: 200, type: ListMemoriesResponse })
  list(@Body() body: unknown) {
    return this.memories.list(body);
  }

  @Post('restore')
  @HttpCode(200)
  @ApiOperation({ operationId: 'memories.restore', summary: 'Restore a forgotten memory (Keel addition)' })
  @ApiBody({ type: RestoreMemoryBody })
  @ApiResponse({ status: 200, type: RestoreMemoryResponse })
  @ApiResponse({ status: 404, type: ErrorBody })
  @ApiResponse({ status: 409, type: ErrorBody })
  restore(@Body() body: unknown) {
    return this.memories.restore(body);
  }

  @Patch()
  @ApiOperation({ operationId: 'memories.updateMemory', summary: 'Versioned update of a memory' })
  @ApiBody({ type: UpdateMemoryBody })
  @ApiResponse({ status: 200, type: UpdateMemoryResponse })
  @ApiResponse({ status: 404, type: ErrorBody })
  update(@Body() body: unknown) {
    return this.memories.update(body);
  }

  @Delete()
  @ApiOperation({ operationId: 'memories.forget', summary: 'Forget (soft-delete) a memory' })
  @ApiBody({ type: ForgetMemoryBody })
  @ApiResponse({ status: 200, type: ForgetMemoryResponse })
  @ApiResponse({ status: 404, type: ErrorBody })
  @ApiResponse({ status: 409, type: ErrorBody })
  forget(@Body() body: unknown) {
    return this.memories.forget(body);
  }
}
