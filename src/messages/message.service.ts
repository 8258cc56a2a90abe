/**
 * MessageService — message infos and their parts, stored as one JSON row each.
 *
 *   newMessageID() / newPartID() → string                ascending `msg_` / `prt_` ids
 *   updateMessage(info, {directory?}) → info             upsert (client-supplied ids kept); message.updated {sessionID, info}
 *   updatePart(part, {delta?, directory?}) → part        upsert, no read; message.part.updated {sessionID, part, delta?} at once,
 *                                                        and with `delta` first message.part.delta (opencode 1.18's stream event).
 *                                                        With `delta` (streaming) the row is written within 50 ms
 *                                                        (coalesced); without it, before returning. Send the
 *                                                        final state of a streamed part without `delta`.
 *                                                        A part sent with `delta` is handed over: never mutate
 *                                                        it afterwards (its row and, for a slow client, its
 *                                                        event frame are serialised later). Its text must be
 *                                                        the previous update's text + delta (the relay sends
 *                                                        only the delta between replicas).
 *   removePart(sessionID, messageID, partID) → void      404 when unknown; message.part.removed
 *   removeMessage(sessionID, messageID) → void           with its parts; 404 when unknown; message.removed
 *   list(sessionID, {limit?}) → {info, parts}[]          chronological (id order), `limit` = the last N
 *   get(sessionID, messageID) → {info, parts}            404 when unknown
 *   parts(messageID) → Part[]                            id order
 *   fork(instance, sessionID, messageID?) → Session      new root session with copies of messages < messageID
 *
 * Events go to the session's directory unless `directory` is given (e.g. the instance running a prompt).
 * Every session-scoped call 404s for an unknown session (the session location is cached, so it is cheap).
 */
import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors';
import { ascendingId } from '../common/ids';
import type { Instance } from '../projects/instance.service';
import type { Session } from '../sessions/session.entity';
import { SessionService, assertIdPrefix } from '../sessions/session.service';
import { MessageInfo, MessageWithParts, Part } from './message.entity';
import { MessageRepository } from './message.repository';
import { PartWriter } from './part-writer';

interface PublishTarget {
  /** Publish on this directory instead of the session's own. */
  directory?: string;
}

@Injectable()
export class MessageService {
  constructor(
    private readonly repository: MessageRepository,
    private readonly sessions: SessionService,
    private readonly writer: PartWriter,
  ) {
    sessions.onDelete(async (manager, ids) => {
      writer.forget(ids);
      await repository.removeSessions(manager, ids);
    });
  }

  newMessageID(): string {
    return ascendingId('msg');
  }

  newPartID(): string {
    return ascendingId('prt');
  }

  async updateMessage<T extends MessageInfo>(info: T, target: PublishTarget = {}): Promise<T> {
    const { directory } = await this.sessions.locate(info.sessionID);
    await this.repository.upsertMessage(info);
    // `sessionID` beside the reference's `{info}`: newer opencode clients (1.18) route events by it.
    await this.sessions.publish(info.sessionID, 'message.updated', { sessionID: info.sessionID, info }, target.directory ?? directory);
    return info;
  }

  async updatePart<T extends Part>(part: T, options: PublishTarget & { delta?: string } = {}): Promise<T> {
    const { directory } = await this.sessions.locate(part.sessionID);
    if (options.delta === undefined) await this.writer.write(part);
    else this.writer.defer(part);
    const target = options.directory ?? directory;
    if (options.delta === undefined) {
      await this.sessions.publish(part.sessionID, 'message.part.updated', { sessionID: part.sessionID, part }, target);
      return part;
    }
    // Two generations of clients read a stream: opencode 1.18 appends `message.part.delta` to the part
    // it holds; 1.0 and 1.1 take the whole part from `message.part.updated` (with `delta`). The delta
    // goes first, so a 1.18 client's text is right after either event: the whole-part update then
    // replaces it with the same text.
    const delta = { sessionID: part.sessionID, messageID: part.messageID, partID: part.id, field: 'text', delta: options.delta };
    await this.sessions.publish(part.sessionID, 'message.part.delta', delta, target);
    await this.sessions.publish(part.sessionID, 'message.part.updated', { sessionID: part.sessionID, part, delta: options.delta }, target);
    return part;
  }

  async removePart(sessionID: string, messageID: string, partID: string, target: PublishTarget = {}): Promise<void> {
    await this.sessions.locate(sessionID);
    assertIdPrefix(messageID, 'msg', 'messageID');
    assertIdPrefix(partID, 'prt', 'partID');
    await this.writer.settle();
    if (!(await this.repository.removePart(sessionID, messageID, partID))) throw new NotFoundError(`Part not found: ${partID}`);
    await this.sessions.publish(sessionID, 'message.part.removed', { sessionID, messageID, partID }, target.directory);
  }

  async removeMessage(sessionID: string, messageID: string, target: PublishTarget = {}): Promise<void> {
    await this.sessions.locate(sessionID);
    await this.writer.settle();
    if (!(await this.repository.removeMessage(sessionID, messageID))) throw new NotFoundError(`Message not found: ${messageID}`);
    await this.sessions.publish(sessionID, 'message.removed', { sessionID, messageID }, target.directory);
  }

  async list(sessionID: string, options: { limit?: number } = {}): Promise<MessageWithParts[]> {
    await this.sessions.locate(sessionID);
    await this.writer.settle();
    // A limit past any possible count (the reference allows any number) means all: SQL cannot take 1e300.
    const wanted = options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : undefined;
    const limit = wanted !== undefined && Number.isSafeInteger(wanted) ? wanted : undefined;
    return this.repository.list(sessionID, limit);
  }

  async get(sessionID: string, messageID: string): Promise<MessageWithParts> {
    await this.sessions.locate(sessionID);
    assertIdPrefix(messageID, 'msg', 'messageID');
    const info = await this.repository.message(sessionID, messageID);
    if (!info) throw new NotFoundError(`Message not found: ${messageID}`);
    return { info, parts: await this.parts(messageID) };
  }

  async parts(messageID: string): Promise<Part[]> {
    await this.writer.settle();
    return this.repository.parts(messageID);
  }

  /**
   * A new root session in `instance`, with fresh ids. Assistant `parentID`s point at the copied user
   * messages (opencode 1.1 remaps them; its TUI draws broken footers when they name the old session's ids).
   */
  async fork(instance: Instance, sessionID: string, messageID?: string): Promise<Session> {
    await this.sessions.get(sessionID);
    const infos = await this.repository.infos(sessionID, messageID);
    const session = await this.sessions.create(instance);
    const newIDs = new Map<string, string>();
    for (const copied of infos) {
      const info = { ...copied, id: this.newMessageID(), sessionID: session.id };
      newIDs.set(copied.id, info.id);
      if (info.role === 'assistant' && newIDs.has(info.parentID)) info.parentID = newIDs.get(info.parentID)!;
      await this.updateMessage(info);
      for (const part of await this.parts(copied.id)) {
        await this.updatePart({ ...part, id: this.newPartID(), messageID: info.id, sessionID: session.id });
      }
    }
    return session;
  }
}
