import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module';
import { PermissionRepository } from './permission.repository';
import { PermissionService } from './permission.service';
import { PermissionsController } from './permissions.controller';

/** Permission requests of tool calls, their replies and remembered "always" approvals. */
@Module({
  imports: [SessionsModule],
  controllers: [PermissionsController],
  providers: [PermissionRepository, PermissionService],
  exports: [PermissionService],
})
export class PermissionsModule {}
