import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionsModule } from '../sessions/sessions.module';
import { MessageEntity, PartEntity } from './message.entity';
import { MessageService } from './message.service';
import { MessagesController } from './messages.controller';

/** Message infos and parts of sessions (the prompt loop writes through MessageService). */
@Module({
  imports: [TypeOrmModule.forFeature([MessageEntity, PartEntity]), SessionsModule],
  controllers: [MessagesController],
  providers: [MessageService],
  exports: [MessageService],
})
export class MessagesModule {}
