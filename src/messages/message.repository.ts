import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, LessThan, Repository } from 'typeorm';
import { MessageEntity, MessageInfo, MessageWithParts, Part, PartEntity } from './message.entity';

/** A part row as upserted (its `data` already serialised). */
export interface PartRow {
  id: string;
  sessionID: string;
  messageID: string;
  data: string;
}

/** The message and part rows: the upserts (raw SQL, both dialects), reads in id order and deletes. */
@Injectable()
export class MessageRepository {
  private readonly pg: boolean;
  private readonly upsertMessageSql: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(MessageEntity) private readonly messages: Repository<MessageEntity>,
    @InjectRepository(PartEntity) private readonly partRows: Repository<PartEntity>,
  ) {
    this.pg = dataSource.options.type === 'postgres';
    const p = (n: number) => (this.pg ? `$${n}` : '?');
    this.upsertMessageSql =
      `INSERT INTO "message" ("id", "session_id", "role", "data", "time_created") VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}) ` +
      `ON CONFLICT ("id") DO UPDATE SET "data" = excluded."data", "role" = excluded."role"`;
  }

  async upsertMessage(info: MessageInfo): Promise<void> {
    await this.dataSource.query(this.upsertMessageSql, [info.id, info.sessionID, info.role, JSON.stringify(info), info.time.created]);
  }

  /** One statement for all `rows` (the caller keeps a batch within the engines' parameter limits). */
  async upsertParts(rows: PartRow[]): Promise<void> {
    if (rows.length === 0) return;
    let n = 0;
    const p = () => (this.pg ? `$${++n}` : '?');
    const values = rows.map(() => `(${p()}, ${p()}, ${p()}, ${p()})`).join(', ');
    await this.dataSource.query(
      `INSERT INTO "part" ("id", "session_id", "message_id", "data") VALUES ${values} ` +
        `ON CONFLICT ("id") DO UPDATE SET "data" = excluded."data", "session_id" = excluded."session_id", "message_id" = excluded."message_id"`,
      rows.flatMap((row) => [row.id, row.sessionID, row.messageID, row.data]),
    );
  }

  /** Whether the part was there. */
  async removePart(sessionID: string, messageID: string, partID: string): Promise<boolean> {
    return !!(await this.partRows.delete({ id: partID, sessionID, messageID })).affected;
  }

  /** The message and its parts, in one transaction; whether the message was there. */
  async removeMessage(sessionID: string, messageID: string): Promise<boolean> {
    return !!(await this.dataSource.transaction(async (manager) => {
      await manager.delete(PartEntity, { messageID, sessionID });
      return (await manager.delete(MessageEntity, { id: messageID, sessionID })).affected;
    }));
  }

  /** Inside the session delete's transaction. */
  async removeSessions(manager: EntityManager, sessionIDs: string[]): Promise<void> {
    await manager.delete(PartEntity, { sessionID: In(sessionIDs) });
    await manager.delete(MessageEntity, { sessionID: In(sessionIDs) });
  }

  /** The session's messages with their parts, chronological; with `limit`, the last `limit`. */
  async list(sessionID: string, limit?: number): Promise<MessageWithParts[]> {
    const rows = await this.messages.find({
      select: { id: true, data: true },
      where: { sessionID },
      order: { id: limit ? 'DESC' : 'ASC' },
      ...(limit ? { take: limit } : {}),
    });
    if (limit) rows.reverse();
    if (rows.length === 0) return [];
    const partRows = await this.partRows.find({
      select: { id: true, messageID: true, data: true },
      where: limit ? { sessionID, messageID: In(rows.map((r) => r.id)) } : { sessionID },
      order: { messageID: 'ASC', id: 'ASC' },
    });
    const byMessage = new Map<string, Part[]>();
    for (const row of partRows) {
      let list = byMessage.get(row.messageID);
      if (!list) byMessage.set(row.messageID, (list = []));
      list.push(JSON.parse(row.data) as Part);
    }
    return rows.map((row) => ({ info: JSON.parse(row.data) as MessageInfo, parts: byMessage.get(row.id) ?? [] }));
  }

  async message(sessionID: string, messageID: string): Promise<MessageInfo | undefined> {
    const row = await this.messages.findOne({ select: { id: true, data: true }, where: { id: messageID, sessionID } });
    return row ? (JSON.parse(row.data) as MessageInfo) : undefined;
  }

  /** The session's message infos in id order, only those before `messageID` when given. */
  async infos(sessionID: string, before?: string): Promise<MessageInfo[]> {
    const rows = await this.messages.find({
      select: { id: true, data: true },
      where: before ? { sessionID, id: LessThan(before) } : { sessionID },
      order: { id: 'ASC' },
    });
    return rows.map((row) => JSON.parse(row.data) as MessageInfo);
  }

  async parts(messageID: string): Promise<Part[]> {
    const rows = await this.partRows.find({ select: { id: true, data: true }, where: { messageID }, order: { id: 'ASC' } });
    return rows.map((row) => JSON.parse(row.data) as Part);
  }
}
