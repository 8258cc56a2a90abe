import { Module } from '@nestjs/common';
import { ConfigModule } from '../config/config.module';
import { MessagesModule } from '../messages/messages.module';
import { SessionsModule } from '../sessions/sessions.module';
import { RevertController } from './revert.controller';
import { RevertService } from './revert.service';
import { SnapshotService } from './snapshot.service';

/**
 * Worktree snapshots (a shadow git repository per project) and session revert/unrevert built on them.
 * The prompt loop uses SnapshotService at each step and RevertService.cleanup before a new message.
 */
@Module({
  imports: [ConfigModule, SessionsModule, MessagesModule],
  controllers: [RevertController],
  providers: [SnapshotService, RevertService],
  exports: [SnapshotService, RevertService],
})
export class SnapshotsModule {}
