/**
 * SessionStatusService — in-memory status of running sessions (idle / busy / retry).
 *
 *   get(sessionID) → SessionStatus                       `{type:"idle"}` when nothing is recorded
 *   set(sessionID, status, directory?) → Promise<void>   publishes session.status {sessionID, status}; when idle
 *                                                        also session.idle {sessionID} and forgets the entry
 *   nonIdle(projectID?) → Record<sessionID, status>      what `GET /session/status` answers
 */
import { Injectable } from '@nestjs/common';
import { SessionService } from './session.service';

export type SessionStatus =
  | { type: 'idle' }
  | { type: 'busy' }
  | { type: 'retry'; attempt: number; message: string; next: number };

@Injectable()
export class SessionStatusService {
  private readonly statuses = new Map<string, { status: SessionStatus; projectID: string }>();

  constructor(private readonly sessions: SessionService) {
    sessions.onDelete((_manager, ids) => {
      for (const id of ids) this.statuses.delete(id);
      return Promise.resolve();
    });
  }

  get(sessionID: string): SessionStatus {
    return this.statuses.get(sessionID)?.status ?? { type: 'idle' };
  }

  async set(sessionID: string, status: SessionStatus, directory?: string): Promise<void> {
    const location = await this.sessions.locate(sessionID);
    const where = directory ?? location.directory;
    if (status.type === 'idle') this.statuses.delete(sessionID);
    else this.statuses.set(sessionID, { status, projectID: location.projectID });
    await this.sessions.publish(sessionID, 'session.status', { sessionID, status }, where);
    if (status.type === 'idle') await this.sessions.publish(sessionID, 'session.idle', { sessionID }, where);
  }

  nonIdle(projectID?: string): Record<string, SessionStatus> {
    const out: Record<string, SessionStatus> = {};
    for (const [id, entry] of this.statuses) {
      if (projectID === undefined || entry.projectID === projectID) out[id] = entry.status;
    }
    return out;
  }
}
