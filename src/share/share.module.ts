import { Module } from '@nestjs/common';
import { MessagesModule } from '../messages/messages.module';
import { SessionsModule } from '../sessions/sessions.module';
import { ShareController } from './share.controller';
import { ShareService } from './share.service';

/** Public, read-only share pages of sessions (`/share/<shareID>`), served by Keel itself. */
@Module({
  imports: [SessionsModule, MessagesModule],
  controllers: [ShareController],
  providers: [ShareService],
})
export class ShareModule {}
