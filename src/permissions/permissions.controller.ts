import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { Operation } from '../openapi/operation.decorator';
import type { Permission, PermissionResponse } from './permission.entity';
import { PermissionService } from './permission.service';

@Controller()
export class PermissionsController {
  constructor(private readonly permissions: PermissionService) {}

  @Get('permission')
  @Operation('permission.list')
  list(): Promise<Permission[]> {
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
}
