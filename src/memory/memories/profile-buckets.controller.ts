import { Controller, Post } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { ProfileBucketsBody, ProfileBucketsResponse } from './dto/memory.dto';
import { MemoriesService } from './memories.service';
import { MemoryApiAuth } from '../memory-auth.decorator';
import { MemoryOperation } from '../memory-operation.decorator';
import { Org } from '../organizations/org.decorator';
import { MemoryBody } from '../validation';

@ApiTags('memory: search')
@MemoryApiAuth()
@ApiResponse({ status: 400, type: ErrorBody })
@ApiResponse({ status: 401, type: ErrorBody })
@Controller('v4/profile')
export class ProfileBucketsController {
  constructor(private readonly memories: MemoriesService) {}

  @Post('buckets')
  @MemoryOperation('profile.buckets', 'Buckets a profile can be sorted into', { body: ProfileBucketsBody, type: ProfileBucketsResponse })
  buckets(@Org() _org: string, @MemoryBody() _body: ProfileBucketsBody): ProfileBucketsResponse {
    // The body is only checked (and the organization required, as on every memory route): buckets are
    // not configurable per container tag here.
    return this.memories.buckets();
  }
}
