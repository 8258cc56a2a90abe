/**
 * RevertService — undo a session's file changes back to a message (or part), and redo them.
 *
 *   revert(instance, sessionID, {messageID, partID?}) → Session   BusyError (400) while the session runs;
 *                    NotFoundError (404) for an unknown session, message, or part of that message. Reverts every
 *                    file named by a `patch` part of what cleanup would delete, stores
 *                    `session.revert = {messageID, partID?, snapshot, diff}` (session.updated). Messages stay.
 *                    A repeated revert keeps the first snapshot and starts again from its tree.
 *   unrevert(instance, sessionID) → Session                      BusyError while running; restores the whole tree
 *                    from `revert.snapshot` (and deletes the files the revert re-created that the snapshot does
 *                    not have), clears `revert` (session.updated). No revert: the session as it is.
 *   cleanup(sessionID) → void                                    deletes what a pending revert hides: messages
 *                    after the point (message.removed) and parts from `partID` on (message.part.removed), then
 *                    clears `revert` (session.updated); nothing when no revert is pending. prompt, prompt_async,
 *                    command, shell and summarize call it before they add a message; it waits for a revert or
 *                    unrevert of the same session that is still running.
 *
 * The revert point: reverting a whole message, or a part with no text/tool part before it in its message,
 * reverts to the nearest user message at or before it (the whole turn goes); otherwise to that part.
 */
import { Injectable } from '@nestjs/common';
import { BusyError, NotFoundError } from '../common/errors';
import { KeyedMutex } from '../common/keyed-mutex';
import type { MessageWithParts, Part } from '../messages/message.entity';
import { MessageService } from '../messages/message.service';
import { InstanceService } from '../projects/instance.service';
import type { Instance } from '../projects/instance.service';
import { SessionStatusService } from '../sessions/session-status.service';
import type { Session, SessionRevert } from '../sessions/session.entity';
import { SessionService } from '../sessions/session.service';
import { SnapshotService } from './snapshot.service';
import type { SnapshotPatch } from './snapshot.service';

export interface RevertInput {
  messageID: string;
  partID?: string;
}

/** Where a revert cuts the history: messages after it, and its own parts from `partID` on, are hidden. */
type RevertPoint = RevertInput;

@Injectable()
export class RevertService {
  // revert, unrevert and cleanup of one session must not interleave (each reads then rewrites `revert`).
  private readonly sessionsInFlight = new KeyedMutex();

  constructor(
    private readonly sessions: SessionService,
    private readonly statuses: SessionStatusService,
    private readonly messages: MessageService,
    private readonly snapshots: SnapshotService,
    private readonly instances: InstanceService,
  ) {}

  revert(instance: Instance, sessionID: string, input: RevertInput): Promise<Session> {
    return this.sessionsInFlight.run(sessionID, async () => {
      const session = await this.sessions.get(sessionID);
      this.assertNotBusy(sessionID);
      const history = await this.messages.list(sessionID);
      const point = revertPoint(history, input);
      const where = await this.worktreeOf(instance, session);
      // A repeated revert keeps the snapshot taken before the first one and starts from the tree it holds,
      // so moving the point later brings back what the earlier revert undid.
      if (session.revert) await this.undo(where, history, session.revert);
      const snapshot = session.revert?.snapshot ?? (await this.snapshots.track(where));
      await this.snapshots.revertFiles(where, patchesFrom(history, point));
      const revert: SessionRevert = { ...point };
      if (snapshot) {
        revert.snapshot = snapshot;
        revert.diff = await this.snapshots.diff(where, snapshot);
      }
      return this.sessions.update(sessionID, { revert });
    });
  }

  unrevert(instance: Instance, sessionID: string): Promise<Session> {
    return this.sessionsInFlight.run(sessionID, async () => {
      const session = await this.sessions.get(sessionID);
      this.assertNotBusy(sessionID);
      if (!session.revert) return session;
      const history = await this.messages.list(sessionID);
      await this.undo(await this.worktreeOf(instance, session), history, session.revert);
      return this.sessions.update(sessionID, { revert: null });
    });
  }

  cleanup(sessionID: string): Promise<void> {
    return this.sessionsInFlight.run(sessionID, async () => {
      const session = await this.sessions.get(sessionID);
      const point = session.revert;
      if (!point) return;
      for (const message of await this.messages.list(sessionID)) {
        const id = message.info.id;
        if (id < point.messageID) continue;
        if (id === point.messageID && point.partID) {
          const from = message.parts.findIndex((p) => p.id === point.partID);
          for (const part of from < 0 ? [] : message.parts.slice(from)) {
            await ignoreMissing(this.messages.removePart(sessionID, id, part.id));
          }
          continue;
        }
        await ignoreMissing(this.messages.removeMessage(sessionID, id));
      }
      await this.sessions.update(sessionID, { revert: null });
    });
  }

  /**
   * Back to the tree of `revert.snapshot`: the whole tree is restored (as the reference does), and the
   * files the revert re-created that did not exist in the snapshot are deleted again.
   */
  private async undo(where: Instance, history: MessageWithParts[], revert: SessionRevert): Promise<void> {
    if (!revert.snapshot) return;
    await this.snapshots.restore(where, revert.snapshot);
    const files = patchesFrom(history, revert).flatMap((p) => p.files);
    await this.snapshots.revertFiles(where, [{ hash: revert.snapshot, files }]);
  }

  private assertNotBusy(sessionID: string): void {
    if (this.statuses.get(sessionID).type !== 'idle') throw new BusyError(`Session ${sessionID} is busy`);
  }

  /** The request's instance when it is the session's project, else the one of the directory the session lives in. */
  private async worktreeOf(instance: Instance, session: Session): Promise<Instance> {
    return instance.project.id === session.projectID ? instance : this.instances.get(session.directory);
  }
}

function revertPoint(history: MessageWithParts[], input: RevertInput): RevertPoint {
  let lastUser: string | undefined;
  for (const { info, parts } of history) {
    if (info.role === 'user') lastUser = info.id;
    if (info.id !== input.messageID) continue;
    const at = input.partID === undefined ? 0 : parts.findIndex((p) => p.id === input.partID);
    if (at < 0) throw new NotFoundError(`Part not found: ${input.partID}`);
    // Reverting to a part only makes sense when something the user sees (text, a tool call) stays before it.
    const keepsSomething = parts.slice(0, at).some((p) => p.type === 'text' || p.type === 'tool');
    if (input.partID !== undefined && keepsSomething) return { messageID: info.id, partID: input.partID };
    return { messageID: lastUser ?? info.id };
  }
  throw new NotFoundError(`Message not found: ${input.messageID}`);
}

/** The `patch` parts that `cleanup` would delete for this point: their file changes are the ones to undo. */
function patchesFrom(history: MessageWithParts[], point: RevertPoint): SnapshotPatch[] {
  const patches: SnapshotPatch[] = [];
  for (const { info, parts } of history) {
    if (info.id < point.messageID) continue;
    const from =
      info.id === point.messageID && point.partID ? parts.findIndex((p) => p.id === point.partID) : 0;
    for (const part of parts.slice(Math.max(from, 0))) {
      if (isPatch(part)) patches.push({ hash: part.hash, files: part.files });
    }
  }
  return patches;
}

function isPatch(part: Part): part is Part & SnapshotPatch {
  return part.type === 'patch' && typeof part.hash === 'string' && Array.isArray(part.files);
}

async function ignoreMissing(removal: Promise<void>): Promise<void> {
  try {
    await removal;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}
