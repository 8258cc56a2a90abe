import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, QueryDeepPartialEntity } from 'typeorm';
import { BatchedInsert } from '../database/batched-insert';
import { DirectQuery, directQuery } from '../database/direct-query';
import { EventRelay } from '../events/event-relay.service';
import { FileDiff, SessionDiffEntity, SessionEntity, SessionShareEntity, SessionTodoEntity, Todo } from './session.entity';
import { SessionLists, sessionLists } from './session-lists';
import { SESSION_COLUMNS, SessionRow, fromRow } from './session-rows';

/** What `insert` writes, in the order of its values. */
const INSERTED_COLUMNS = [
  'id', 'project_id', 'parent_id', 'directory', 'slug', 'path', 'agent', 'model', 'title', 'version', 'time_created', 'time_updated',
] as const;

/**
 * The session aggregate's rows: sessions (the lookup and the creates in raw SQL, the hot paths), their
 * todo lists, diffs and shares. `manager` is the caller's transaction.
 */
@Injectable()
export class SessionRepository {
  /** `GET /session`'s reads, as each engine makes them cheap (see session-lists.ts). */
  readonly lists: SessionLists;
  private readonly getSql: string;
  /** The lookup and the creates go straight to the driver: TypeORM's query runner cost about 5 µs a statement. */
  private readonly query: DirectQuery;
  /** Concurrent creates go to the database as multi-row INSERTs (a round trip and a commit for several). */
  private readonly inserts: BatchedInsert;

  constructor(@InjectDataSource() private readonly db: DataSource, relay: EventRelay) {
    const pg = db.options.type === 'postgres';
    this.getSql = `SELECT ${SESSION_COLUMNS} FROM "session" WHERE "id" = ${pg ? '$1' : '?'}`;
    this.query = directQuery(db);
    this.inserts = new BatchedInsert(this.query, 'session', INSERTED_COLUMNS, pg ? 'postgres' : 'sqlite');
    this.lists = sessionLists(db, () => relay.alone());
  }

  /** A new session (settles when its batch has committed). */
  insert(row: SessionEntity): Promise<void> {
    return this.inserts.insert([
      row.id,
      row.projectID,
      row.parentID,
      row.directory,
      row.slug,
      row.path,
      row.agent,
      row.model ? JSON.stringify(row.model) : null,
      row.title,
      row.version,
      row.timeCreated,
      row.timeUpdated,
    ]);
  }

  async find(id: string): Promise<SessionEntity | undefined> {
    const [row] = (await this.query(this.getSql, [id])) as SessionRow[];
    return row ? fromRow(row) : undefined;
  }

  children(parentID: string): Promise<SessionEntity[]> {
    return this.db.getRepository(SessionEntity).find({ where: { parentID }, order: { id: 'ASC' } });
  }

  /** `root` and its descendants, breadth-first. */
  async tree(root: SessionEntity): Promise<SessionEntity[]> {
    const order = [root];
    for (let i = 0; i < order.length; i++) {
      order.push(...(await this.children(order[i].id)));
    }
    return order;
  }

  async update(id: string, fields: QueryDeepPartialEntity<SessionEntity>): Promise<void> {
    await this.db.getRepository(SessionEntity).update({ id }, fields);
  }

  /** The sessions with their todo lists, diffs and shares (after the other modules' rows, in the delete's transaction). */
  async remove(ids: string[], manager = this.db.manager): Promise<void> {
    await manager.delete(SessionTodoEntity, { sessionID: In(ids) });
    await manager.delete(SessionDiffEntity, { sessionID: In(ids) });
    await manager.delete(SessionShareEntity, { sessionID: In(ids) });
    await manager.delete(SessionEntity, { id: In(ids) });
  }

  async todos(sessionID: string): Promise<Todo[]> {
    return (await this.db.getRepository(SessionTodoEntity).findOneBy({ sessionID }))?.todos ?? [];
  }

  async setTodos(sessionID: string, todos: Todo[], timeUpdated: number): Promise<void> {
    await this.db.getRepository(SessionTodoEntity).upsert({ sessionID, todos, timeUpdated }, ['sessionID']);
  }

  async diff(sessionID: string): Promise<FileDiff[]> {
    return (await this.db.getRepository(SessionDiffEntity).findOneBy({ sessionID }))?.diffs ?? [];
  }

  async setDiff(sessionID: string, diffs: FileDiff[]): Promise<void> {
    await this.db.getRepository(SessionDiffEntity).upsert({ sessionID, diffs }, ['sessionID']);
  }

  share(sessionID: string): Promise<SessionShareEntity | null> {
    return this.db.getRepository(SessionShareEntity).findOneBy({ sessionID });
  }

  /** Two shares of one session at once (or on two replicas): the first insert wins, and both get its record. */
  async addShare(share: SessionShareEntity): Promise<SessionShareEntity> {
    const shares = this.db.getRepository(SessionShareEntity);
    await shares.createQueryBuilder().insert().values(share).orIgnore().execute();
    return shares.findOneByOrFail({ sessionID: share.sessionID });
  }

  async removeShare(sessionID: string): Promise<void> {
    await this.db.getRepository(SessionShareEntity).delete({ sessionID });
  }

  /** The session a share id shares, if any. */
  async sharedSession(shareID: string): Promise<string | undefined> {
    return (await this.db.getRepository(SessionShareEntity).findOneBy({ shareID }))?.sessionID;
  }

  async isShared(sessionID: string, shareID: string): Promise<boolean> {
    return (await this.db.getRepository(SessionShareEntity).countBy({ sessionID, shareID })) > 0;
  }
}
