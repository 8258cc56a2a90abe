/**
 * ShareService — what the public share page of a session may read.
 *
 *   view(shareID) → SharedView                     the session, its messages, and its subtasks' sessions with theirs;
 *                                                  NotFoundError when the id shares nothing (never shared, revoked)
 *   follow(shareID, send, close) → unsubscribe     events of those sessions only (and `share.revoked`, then close)
 *
 * Nothing else is reachable from a share id: the events pass a fixed list of types whose session
 * is the shared one or one of its descendants.
 */
import { Injectable } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { NotFoundError } from '../common/errors';
import { EventBus, EventPayload } from '../events/event-bus.service';
import type { MessageWithParts } from '../messages/message.entity';
import { MessageService } from '../messages/message.service';
import type { Session } from '../sessions/session.entity';
import { SessionService } from '../sessions/session.service';

export interface SharedSession {
  session: Session;
  messages: MessageWithParts[];
}

export interface SharedView extends SharedSession {
  /** Subtask sessions (children, recursively), oldest first. */
  subtasks: SharedSession[];
}

/** Events a share viewer receives, when they concern a session of the share. */
const SHARED_EVENT_TYPES = new Set([
  'message.updated',
  'message.removed',
  'message.part.updated',
  'message.part.removed',
  'session.created',
  'session.updated',
  'session.deleted',
  'session.status',
  'session.idle',
  'session.error',
  'session.compacted',
  'todo.updated',
]);

/** Bounds what one public page loads: subtasks nested deeper or more numerous are left out. */
const MAX_SUBTASKS = 200;

const SHARE_REVOKED = 'share.revoked';

@Injectable()
export class ShareService {
  constructor(
    private readonly sessions: SessionService,
    private readonly messages: MessageService,
    private readonly bus: EventBus,
  ) {}

  async sessionOf(shareID: string): Promise<string> {
    const sessionID = await this.sessions.sharedSession(shareID);
    if (!sessionID) throw new NotFoundError('This session is not shared');
    return sessionID;
  }

  async view(shareID: string): Promise<SharedView> {
    const sessionID = await this.sessionOf(shareID);
    const [session, messages] = await Promise.all([this.sessions.get(sessionID), this.messages.list(sessionID)]);
    const subtasks: SharedSession[] = [];
    for (const child of await this.descendants(sessionID))
      subtasks.push({ session: child, messages: await this.messages.list(child.id) });
    return { session, messages, subtasks };
  }

  /**
   * Streams the share's events to `send` until the share is revoked or its session deleted
   * (`share.revoked` is sent, then `close`). The session set grows as subtasks are created.
   */
  async follow(shareID: string, send: (payload: EventPayload) => void, close: () => void): Promise<Subscription> {
    const rootID = await this.sessionOf(shareID);
    const members = new Set([rootID, ...(await this.descendants(rootID)).map((s) => s.id)]);
    return this.bus.all().subscribe(({ payload }) => {
      if (!SHARED_EVENT_TYPES.has(payload.type)) return;
      const properties = payload.properties as Record<string, unknown>;
      const info = properties.info as Partial<Session> | undefined;
      if (payload.type === 'session.created' && info?.parentID && members.has(info.parentID) && info.id) members.add(info.id);
      const sessionID = sessionOfEvent(payload);
      if (!sessionID || !members.has(sessionID)) return;
      const revoked =
        sessionID === rootID &&
        (payload.type === 'session.deleted' || (payload.type === 'session.updated' && !info?.share));
      if (revoked) {
        // An update without share may also come from another replica's write racing a re-share: ask the store.
        void this.sessions.isShared(rootID, shareID).then((still) => {
          if (still) return;
          send({ type: SHARE_REVOKED, properties: { sessionID: rootID } });
          close();
        }, close);
        return;
      }
      send(payload);
    });
  }

  private async descendants(sessionID: string): Promise<Session[]> {
    const found: Session[] = [];
    const queue = [sessionID];
    while (queue.length > 0 && found.length < MAX_SUBTASKS) {
      for (const child of await this.sessions.children(queue.shift()!)) {
        if (found.length >= MAX_SUBTASKS) break;
        found.push(child);
        queue.push(child.id);
      }
    }
    return found.sort((a, b) => a.time.created - b.time.created);
  }
}

/** The session an event is about, in each shape the session surface publishes. */
function sessionOfEvent(payload: EventPayload): string | undefined {
  const p = payload.properties as Record<string, any>;
  if (typeof p.sessionID === 'string') return p.sessionID;
  if (typeof p.part?.sessionID === 'string') return p.part.sessionID as string;
  if (payload.type.startsWith('session.') && typeof p.info?.id === 'string') return p.info.id as string;
  if (typeof p.info?.sessionID === 'string') return p.info.sessionID as string;
  return undefined;
}
