import { Post } from '@nestjs/common';
import { ProfileBucketsBody, ProfileBucketsResponse } from './dto/memory.dto';
import { MemoriesService } from './memories.service';
import { MemoryController, MemoryOperation } from '../memory-api.decorators';
import { Org } from '../organizations/org.decorator';
import { MemoryBody } from '../validation';

@MemoryController({ path: 'v4/profile', tag: 'memory: search', errors: [{ status: 400 }, { status: 401 }] })
export class ProfileBucketsController {
  constructor(private readonly memories: MemoriesService) {}

  @Post('buckets')
  @MemoryOperation('profile.buckets', 'Buckets a profile can be sorted into', {
    body: ProfileBucketsBody,
    type: ProfileBucketsResponse,
  })
  buckets(@Org() _org: string, @MemoryBody() _body: ProfileBucketsBody): ProfileBucketsResponse {
    // The body is only checked (and the organization required, as on every memory route): buckets are
    // not configurable per container tag here.
    return this.memories.buckets();
  }
}
