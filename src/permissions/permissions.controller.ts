import { Body, Controller, HttpCode, Get, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ValidationError } from '../common/errors';
import { Operation } from '../openapi/operation.decorator';
import type { Permission, PermissionRequestInfo, PermissionResponse } from './permission.entity';
import { PermissionService } from './permission.service';

const REPLIES: PermissionResponse[] = ['once', 'always', 'reject'];

/** opencode 1.1's reply body `{reply, message?}`: a 400 naming the field otherwise. */
function replyOf(body: unknown): PermissionResponse {
  const input = body as { reply?: unknown; message?: unknown } | null;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError([{ code: 'invalid_type', path: [], message: 'Expected an object' }], body ?? null);
  }
  if (!REPLIES.includes(input.reply as PermissionResponse)) {
    throw new ValidationError([{ code: 'invalid_value', path: ['reply'], message: `Expected one of ${REPLIES.join(', ')}` }], body);
  }
  if (input.message !== undefined && typeof input.message !== 'string') {
    throw new ValidationError([{ code: 'invalid_type', path: ['message'], message: 'Expected a string' }], body);
  }
  return input.reply as PermissionResponse;
}

@Controller()
export class PermissionsController {
  constructor(private readonly permissions: PermissionService) {}

  @Get('permission')
  @Operation('permission.list')
  list(): Promise<(Permission & PermissionRequestInfo)[]> {
    return this.permissions.list();
  }

  @Post('session/:sessionID/permissions/:permissionID')
  @Operation('permission.respond')
  async respond(
    @Param('sessionID') sessionID: string,
    @Param('permissionID') permissionID: string,
    @Body() body: { response: PermissionResponse },
  ): Promise<boolean> {
    await this.permissions.reply(sessionID, permissionID, body.response);
    return true;
  }

  /**
   * opencode 1.1+ answers through this route (its TUI never calls the one above). Same semantics;
   * a rejection's `message` (the user's feedback) is accepted but, as with the seed's route, the
   * call fails with the standard rejection.
   */
  @Post('permission/:requestID/reply')
  @HttpCode(200)
  @ApiTags('permission')
  @ApiOperation({ operationId: 'permission.reply', summary: 'Reply to a pending permission request (opencode 1.1+ route)' })
  @ApiParam({ name: 'requestID', schema: { type: 'string', pattern: '^per' } })
  @ApiBody({
    schema: {
      type: 'object',
      properties: { reply: { type: 'string', enum: REPLIES }, message: { type: 'string' } },
      required: ['reply'],
    },
  })
  @ApiOkResponse({ description: 'The reply was recorded', schema: { type: 'boolean' } })
  async replyToRequest(@Param('requestID') requestID: string, @Body() body: unknown): Promise<boolean> {
    await this.permissions.replyToRequest(requestID, replyOf(body));
    return true;
  }
}
