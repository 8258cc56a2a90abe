/**
 * TodoService — a session's todo list, replaced whole (the `todowrite` tool).
 *
 *   get(sessionID) → Todo[]                              [] when none; unknown session → 404
 *   set(sessionID, todos, directory?) → Todo[]           persists; publishes todo.updated {sessionID, todos}
 */
import { Injectable } from '@nestjs/common';
import { Todo } from './session.entity';
import { SessionRepository } from './session.repository';
import { SessionService } from './session.service';

/** The list is the session's (SessionRepository's rows, deleted with it). */
@Injectable()
export class TodoService {
  constructor(
    private readonly repository: SessionRepository,
    private readonly sessions: SessionService,
  ) {}

  async get(sessionID: string): Promise<Todo[]> {
    await this.sessions.locate(sessionID);
    return this.repository.todos(sessionID);
  }

  async set(sessionID: string, todos: Todo[], directory?: string): Promise<Todo[]> {
    await this.sessions.locate(sessionID);
    await this.repository.setTodos(sessionID, todos, Date.now());
    await this.sessions.publish(sessionID, 'todo.updated', { sessionID, todos }, directory);
    return todos;
  }
}
