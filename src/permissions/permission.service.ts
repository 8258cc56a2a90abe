/**
 * PermissionService — tool calls waiting for the user's answer, persisted.
 *
 *   ask(request, {directory?, signal?}) → Promise<'once'|'always'|'reject'>
 *       request = {sessionID, messageID, type, pattern?, callID?, title, metadata?}
 *       Resolves 'always' at once when the session already approved every key (the pattern(s), or the type)
 *       with "always" (remembered in the DB, survives restarts). Otherwise stores a pending `per_` request,
 *       publishes permission.updated (the Permission, seed clients) and permission.asked (the same request
 *       as opencode 1.1+ reads it, PermissionRequestInfo) and resolves when replied, when `signal` aborts
 *       ('reject'), when the instance is disposed ('reject'), or after KEEL_PERMISSION_TIMEOUT_MS with
 *       KEEL_PERMISSION_DEFAULT (default: no timeout).
 *   reply(sessionID, permissionID, response) → void      404 unless pending; records the answer and publishes
 *       permission.replied {sessionID, permissionID, response, requestID, reply} (the seed's fields and
 *       opencode 1.1's); 'always' also answers the session's other pending requests of the same type whose
 *       keys are now covered (each with its own permission.replied)
 *   replyToRequest(requestID, response) → void           the same, for a request named by its id alone
 *                                                        (opencode 1.1's POST /permission/{requestID}/reply)
 *   Replies to one request are taken one at a time, in the order they arrive.
 *   list() → (Permission & PermissionRequestInfo)[]      pending requests of every session, id order
 *
 *   Replicas sharing PostgreSQL: a reply to any replica is recorded in the database, and its permission.replied
 *   event (relayed between replicas) wakes the tool waiting on the replica that asked.
 */
import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors';
import { KeyedMutex } from '../common/keyed-mutex';
import { ascendingId } from '../common/ids';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { EventBus } from '../events/event-bus.service';
import { InstanceService } from '../projects/instance.service';
import { SessionService, assertIdPrefix, assertSessionID } from '../sessions/session.service';
import {
  keysOf,
  Permission,
  PermissionEntity,
  PermissionRequestInfo,
  PermissionResponse,
  toPermission,
  toPermissionRequest,
} from './permission.entity';
import { PermissionRepository } from './permission.repository';
import { wildcardMatch } from '../common/wildcard';

export interface PermissionRequest {
  sessionID: string;
  messageID: string;
  type: string;
  pattern?: string | string[];
  /** What the call asks about (opencode 1.1+'s `patterns`: bash's sub-commands as written, an edit's file). */
  patterns?: string[];
  callID?: string;
  title: string;
  metadata?: Record<string, unknown>;
}

interface AskOptions {
  /** Publish on this directory instead of the session's own (the instance running the prompt). */
  directory?: string;
  /** Aborting (e.g. the prompt was cancelled) answers the request 'reject'. */
  signal?: AbortSignal;
}

interface Waiter {
  sessionID: string;
  resolve: (response: PermissionResponse) => void;
  cleanup: () => void;
}

@Injectable()
export class PermissionService implements BeforeApplicationShutdown {
  private readonly waiters = new Map<string, Waiter>();
  /**
   * Replies to one request are taken in the order they arrive: the 1.1.11 TUI answers Reject with
   * `reject` then a stray `once` at once, and on PostgreSQL (two pool connections) the `once` could
   * otherwise be recorded first.
   */
  private readonly replies = new KeyedMutex();
  private shuttingDown = false;

  constructor(
    private readonly repository: PermissionRepository,
    private readonly sessions: SessionService,
    private readonly bus: EventBus,
    instances: InstanceService,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
  ) {
    instances.onDispose((directory) => this.rejectDirectory(directory));
    bus.ofType<{ permissionID: string; response: PermissionResponse }>('permission.replied').subscribe(({ payload }) =>
      this.settle(payload.properties.permissionID, payload.properties.response),
    );
    sessions.onDelete(async (manager, ids) => {
      for (const row of await this.repository.pendingOf(ids, manager)) this.settle(row.id, 'reject');
      await this.repository.removeSessions(ids, manager);
    });
    // A request stored while its session was being deleted (after the cascade read the pending ones)
    // is rejected once the deletion is announced, here or on another replica.
    bus.ofType<{ sessionID: string }>('session.deleted').subscribe(({ payload }) => this.rejectSession(payload.properties.sessionID));
  }

  async ask(request: PermissionRequest, options: AskOptions = {}): Promise<PermissionResponse> {
    const location = await this.sessions.locate(request.sessionID);
    if (await this.covered(request.sessionID, request.type, keysOf(request.type, request.pattern))) return 'always';
    if (options.signal?.aborted) return 'reject';
    const row = await this.repository.add({
      id: ascendingId('per'),
      sessionID: request.sessionID,
      directory: options.directory ?? location.directory,
      type: request.type,
      pattern: request.pattern ?? null,
      patterns: request.patterns ?? null,
      messageID: request.messageID,
      callID: request.callID ?? null,
      title: request.title,
      metadata: request.metadata ?? {},
      timeCreated: Date.now(),
      response: null,
      timeReplied: null,
    });
    const answer = new Promise<PermissionResponse>((resolve) => {
      const timer =
        this.settings.permissions.timeoutMs === undefined
          ? undefined
          : setTimeout(() => void this.answerUnlessDone(row, this.settings.permissions.defaultResponse), this.settings.permissions.timeoutMs);
      const onAbort = () => void this.answerUnlessDone(row, 'reject');
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(row.id, {
        sessionID: row.sessionID,
        resolve,
        cleanup: () => {
          if (timer) clearTimeout(timer);
          options.signal?.removeEventListener('abort', onAbort);
        },
      });
    });
    // The session may have been deleted, and announced, while the request was being stored.
    if (!(await this.sessions.exists(row.sessionID))) {
      this.settle(row.id, 'reject');
      await this.repository.removeSessions([row.sessionID]);
      return answer;
    }
    this.bus.publish(row.directory, 'permission.updated', toPermission(row));
    this.bus.publish(row.directory, 'permission.asked', toPermissionRequest(row));
    return answer;
  }

  async reply(sessionID: string, permissionID: string, response: PermissionResponse): Promise<void> {
    assertSessionID(sessionID);
    assertIdPrefix(permissionID, 'per', 'permissionID');
    await this.replyToPending(permissionID, response, sessionID);
  }

  async replyToRequest(requestID: string, response: PermissionResponse): Promise<void> {
    assertIdPrefix(requestID, 'per', 'requestID');
    await this.replyToPending(requestID, response);
  }

  async list(): Promise<(Permission & PermissionRequestInfo)[]> {
    const rows = await this.repository.allPending();
    return rows.map((row) => ({ ...toPermission(row), ...toPermissionRequest(row) }));
  }

  /** On shutdown the waiters die with the process, but requests stay pending in the database. */
  beforeApplicationShutdown(): void {
    this.shuttingDown = true;
  }

  /** Replies to the pending request `id` (of `sessionID`, when given), after any reply to it still running. */
  private replyToPending(id: string, response: PermissionResponse, sessionID?: string): Promise<void> {
    return this.replies.run(id, async () => {
      const row = await this.repository.pending(id, sessionID);
      if (!row) throw new NotFoundError(`Permission not found: ${id}`);
      await this.answerWithCascade(row, response);
    });
  }

  /** Answer `row`; "always" also remembers its keys and answers the session's pending requests they now cover. */
  private async answerWithCascade(row: PermissionEntity, response: PermissionResponse): Promise<void> {
    const { sessionID } = row;
    await this.answer(row, response);
    if (response !== 'always') return;
    const keys = keysOf(row.type, row.pattern);
    await this.repository.approve(sessionID, row.type, keys, Date.now());
    const others = await this.repository.allPending({ sessionID, type: row.type });
    for (const other of others) {
      if (keysOf(other.type, other.pattern).every((key) => keys.some((approved) => wildcardMatch(key, approved)))) {
        await this.answer(other, 'always');
      }
    }
  }

  private async covered(sessionID: string, type: string, keys: string[]): Promise<boolean> {
    const approved = await this.repository.approvals(sessionID, type);
    if (approved.length === 0) return false;
    return keys.every((key) => approved.some((a) => wildcardMatch(key, a.pattern)));
  }

  /** Record an answer once (a concurrent reply loses), publish it and wake the asker. */
  private async answer(row: PermissionEntity, response: PermissionResponse): Promise<boolean> {
    if (!(await this.repository.answer(row.id, response, Date.now()))) return false;
    // The seed's fields and opencode 1.1's (requestID, reply) on the one event both generations subscribe to.
    const replied = { sessionID: row.sessionID, permissionID: row.id, response, requestID: row.id, reply: response };
    this.bus.publish(row.directory, 'permission.replied', replied);
    this.settle(row.id, response);
    return true;
  }

  private async answerUnlessDone(row: PermissionEntity, response: PermissionResponse): Promise<void> {
    try {
      await this.answer(row, response);
    } finally {
      this.settle(row.id, response);
    }
  }

  private settle(id: string, response: PermissionResponse): void {
    const waiter = this.waiters.get(id);
    if (!waiter) return;
    this.waiters.delete(id);
    waiter.cleanup();
    waiter.resolve(response);
  }

  private rejectSession(sessionID: string): void {
    const waiting = [...this.waiters].filter(([, waiter]) => waiter.sessionID === sessionID);
    if (waiting.length === 0) return; // the usual case: the deletion's cascade answered them
    for (const [id] of waiting) this.settle(id, 'reject');
    // Stored after the deletion removed the session's requests: removed now.
    this.repository.removeSessions([sessionID]).catch(() => undefined);
  }

  private async rejectDirectory(directory: string): Promise<void> {
    if (this.shuttingDown) {
      for (const id of [...this.waiters.keys()]) this.settle(id, 'reject');
      return;
    }
    const pending = await this.repository.allPending({ directory });
    for (const row of pending) await this.answer(row, 'reject');
  }
}
