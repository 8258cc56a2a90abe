import { Controller, Delete, HttpCode, Patch, Post } from '@nestjs/common';
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
import { Org } from '../organizations/org.decorator';
import { MemoryBody } from '../validation';

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
  create(@Org() org: string, @MemoryBody() body: CreateMemoriesBody): Promise<CreateMemoriesResponse> {
    return this.memories.create(org, body);
  }

  @Post('list')
  @HttpCode(200)
  @ApiOperation({ operationId: 'memories.list', summary: 'List latest memories with their history' })
  @ApiBody({ type: ListMemoriesBody })
  @ApiResponse({ status: 200, type: ListMemoriesResponse })
  list(@Org() org: string, @MemoryBody() body: ListMemoriesBody): Promise<ListMemoriesResponse> {
    return this.memories.list(org, body);
  }

  @Post('restore')
  @HttpCode(200)
  @ApiOperation({ operationId: 'memories.restore', summary: 'Restore a forgotten memory (Keel addition)' })
  @ApiBody({ type: RestoreMemoryBody })
  @ApiResponse({ status: 200, type: RestoreMemoryResponse })
  @ApiResponse({ status: 404, type: ErrorBody })
  @ApiResponse({ status: 409, type: ErrorBody })
  restore(@Org() org: string, @MemoryBody() body: RestoreMemoryBody): Promise<RestoreMemoryResponse> {
    return this.memories.restore(org, body);
  }

  @Patch()
  @ApiOperation({ operationId: 'memories.updateMemory', summary: 'Versioned update of a memory' })
  @ApiBody({ type: UpdateMemoryBody })
  @ApiResponse({ status: 200, type: UpdateMemoryResponse })
  @ApiResponse({ status: 404, type: ErrorBody })
  @ApiResponse({ status: 409, type: ErrorBody })
  update(@Org() org: string, @MemoryBody() body: UpdateMemoryBody): Promise<UpdateMemoryResponse> {
    return this.memories.update(org, body);
  }

  @Delete()
  @ApiOperation({ operationId: 'memories.forget', summary: 'Forget (soft-delete) a memory' })
  @ApiBody({ type: ForgetMemoryBody })
  @ApiResponse({ status: 200, type: ForgetMemoryResponse })
  @ApiResponse({ status: 404, type: ErrorBody })
  @ApiResponse({ status: 409, type: ErrorBody })
  forget(@Org() org: string, @MemoryBody() body: ForgetMemoryBody): Promise<ForgetMemoryResponse> {
    return this.memories.forget(org, body);
  }
}
