import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { ProfileBucketsBody, ProfileBucketsResponse } from './dto/memory.dto';
import { MemoriesService } from './memories.service';
import { MemoryApiAuth } from '../memory-auth.decorator';

@ApiTags('memory: search')
@MemoryApiAuth()
@ApiResponse({ status: 400, type: ErrorBody })
@ApiResponse({ status: 401, type: ErrorBody })
@Controller('v4/profile')
export class ProfileBucketsController {
  constructor(private readonly memories: MemoriesService) {}

  @Post('buckets')
  @HttpCode(200)
  @ApiOperation({ operationId: 'profile.buckets', summary: 'Buckets a profile can be sorted into' })
  @ApiBody({ type: ProfileBucketsBody })
  @ApiResponse({ status: 200, type: ProfileBucketsResponse })
  buckets(@Body() body: unknown) {
    return this.memories.buckets(body);
  }
}
