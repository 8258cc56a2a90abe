import { Module } from '@nestjs/common';
import { SessionStatusService } from './session-status.service';
import { SessionRepository } from './session.repository';
import { SessionService } from './session.service';
import { SessionsController } from './sessions.controller';
import { TodoService } from './todo.service';

/** Sessions, their status, todos, diffs and shares. Messages and permissions build on it. */
@Module({
  controllers: [SessionsController],
  providers: [SessionRepository, SessionService, SessionStatusService, TodoService],
  exports: [SessionService, SessionStatusService, TodoService],
})
export class SessionsModule {}
