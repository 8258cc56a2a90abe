import { Delete, Patch, Post } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
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
import { MemoryController, MemoryOperation } from '../memory-api.decorators';
import { Org } from '../organizations/org.decorator';
import { MemoryBody } from '../validation';

@MemoryController({ path: 'v4/memories', tag: 'memory: memories', errors: [{ status: 400 }, { status: 401 }] })
export class MemoriesController {
  constructor(private readonly memories: MemoriesService) {}

  @Post()
  @MemoryOperation('memories.create', 'Create memories directly, skipping the pipeline', {
    body: CreateMemoriesBody,
    status: 201,
    type: CreateMemoriesResponse,
  })
  create(@Org() org: string, @MemoryBody() body: CreateMemoriesBody): Promise<CreateMemoriesResponse> {
    return this.memories.create(org, body);
  }

  @Post('list')
  @MemoryOperation('memories.list', 'List latest memories with their history', {
    body: ListMemoriesBody,
    type: ListMemoriesResponse,
  })
  list(@Org() org: string, @MemoryBody() body: ListMemoriesBody): Promise<ListMemoriesResponse> {
    return this.memories.list(org, body);
  }

  @Post('restore')
  @MemoryOperation('memories.restore', 'Restore a forgotten memory (Keel addition)', {
    body: RestoreMemoryBody,
    type: RestoreMemoryResponse,
  })
  @ApiResponse({ status: 404, type: ErrorBody })
  @ApiResponse({ status: 409, type: ErrorBody })
  restore(@Org() org: string, @MemoryBody() body: RestoreMemoryBody): Promise<RestoreMemoryResponse> {
    return this.memories.restore(org, body);
  }

  @Patch()
  @MemoryOperation('memories.updateMemory', 'Versioned update of a memory', {
    body: UpdateMemoryBody,
    type: UpdateMemoryResponse,
  })
  @ApiResponse({ status: 404, type: ErrorBody })
  @ApiResponse({ status: 409, type: ErrorBody })
  update(@Org() org: string, @MemoryBody() body: UpdateMemoryBody): Promise<UpdateMemoryResponse> {
    return this.memories.update(org, body);
  }

  @Delete()
  @MemoryOperation('memories.forget', 'Forget (soft-delete) a memory', {
    body: ForgetMemoryBody,
    type: ForgetMemoryResponse,
  })
  @ApiResponse({ status: 404, type: ErrorBody })
  @ApiResponse({ status: 409, type: ErrorBody })
  forget(@Org() org: string, @MemoryBody() body: ForgetMemoryBody): Promise<ForgetMemoryResponse> {
    return this.memories.forget(org, body);
  }
}
