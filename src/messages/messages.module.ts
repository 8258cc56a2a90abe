import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionsModule } from '../sessions/sessions.module';
import { MessageEntity, PartEntity } from './message.entity';
import { MessageRepository } from './message.repository';
import { MessageService } from './message.service';
import { MessagesController } from './messages.controller';
import { PartWriter } from './part-writer';

/** Message infos and parts of sessions (the prompt loop writes through MessageService). */
@Module({
  imports: [TypeOrmModule.forFeature([MessageEntity, PartEntity]), SessionsModule],
  controllers: [MessagesController],
  providers: [MessageService, MessageRepository, PartWriter],
  exports: [MessageService],
})
export class MessagesModule {}
