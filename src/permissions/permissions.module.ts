import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionsModule } from '../sessions/sessions.module';
import { PermissionApprovalEntity, PermissionEntity } from './permission.entity';
import { PermissionService } from './permission.service';
import { PermissionsController } from './permissions.controller';

/** Permission requests of tool calls, their replies and remembered "always" approvals. */
@Module({
  imports: [TypeOrmModule.forFeature([PermissionEntity, PermissionApprovalEntity]), SessionsModule],
  controllers: [PermissionsController],
  providers: [PermissionService],
  exports: [PermissionService],
})
export class PermissionsModule {}
