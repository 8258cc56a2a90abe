import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { Operation } from '../openapi/operation.decorator';
import type { Permission, PermissionRequestInfo, PermissionResponse } from './permission.entity';
import { PermissionService } from './permission.service';

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
   * call fails with the standard rejection. Declared by opencode 1.18.33's document.
   */
  @Post('permission/:requestID/reply')
  @Operation('permission.reply')
  async replyToRequest(@Param('requestID') requestID: string, @Body() body: { reply: PermissionResponse; message?: string }): Promise<boolean> {
    await this.permissions.replyToRequest(requestID, body.reply);
    return true;
  }
}
