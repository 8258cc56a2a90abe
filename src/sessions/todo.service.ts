/**
 * TodoService — a session's todo list, replaced whole (the `todowrite` tool).
 *
 *   get(sessionID) → Todo[]                              [] when none; unknown session → 404
 *   set(sessionID, todos, directory?) → Todo[]           persists; publishes todo.updated {sessionID, todos}
 */
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { SessionTodoEntity, Todo } from './session.entity';
import { SessionService } from './session.service';

@Injectable()
export class TodoService {
  constructor(
    @InjectRepository(SessionTodoEntity) private readonly todos: Repository<SessionTodoEntity>,
    private readonly sessions: SessionService,
  ) {
    sessions.onDelete(async (manager, ids) => {
      await manager.delete(SessionTodoEntity, { sessionID: In(ids) });
    });
  }

  async get(sessionID: string): Promise<Todo[]> {
    await this.sessions.locate(sessionID);
    return (await this.todos.findOneBy({ sessionID }))?.todos ?? [];
  }

  async set(sessionID: string, todos: Todo[], directory?: string): Promise<Todo[]> {
    await this.sessions.locate(sessionID);
    await this.todos.upsert({ sessionID, todos, timeUpdated: Date.now() }, ['sessionID']);
    await this.sessions.publish(sessionID, 'todo.updated', { sessionID, todos }, directory);
    return todos;
  }
}
