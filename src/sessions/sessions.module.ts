import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionStatusService } from './session-status.service';
import { SessionDiffEntity, SessionEntity, SessionShareEntity, SessionTodoEntity } from './session.entity';
import { SessionService } from './session.service';
import { SessionsController } from './sessions.controller';
import { TodoService } from './todo.service';

/** Sessions, their status, todos, diffs and shares. Messages and permissions build on it. */
@Module({
  imports: [TypeOrmModule.forFeature([SessionEntity, SessionTodoEntity, SessionDiffEntity, SessionShareEntity])],
  controllers: [SessionsController],
  providers: [SessionService, SessionStatusService, TodoService],
  exports: [SessionService, SessionStatusService, TodoService],
})
export class SessionsModule {}
