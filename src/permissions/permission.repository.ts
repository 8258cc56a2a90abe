import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, DeepPartial, In, IsNull } from 'typeorm';
import { PermissionApprovalEntity, PermissionEntity, PermissionResponse } from './permission.entity';

/** Permission requests and the "always" approvals of sessions; `manager` is the caller's transaction. */
@Injectable()
export class PermissionRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async add(fields: DeepPartial<PermissionEntity>): Promise<PermissionEntity> {
    const permissions = this.db.getRepository(PermissionEntity);
    const row = permissions.create(fields);
    await permissions.save(row);
    return row;
  }

  /** The request if it is still unanswered (of `sessionID`, when given). */
  pending(id: string, sessionID?: string): Promise<PermissionEntity | null> {
    return this.db.getRepository(PermissionEntity).findOneBy({ id, ...(sessionID === undefined ? {} : { sessionID }), response: IsNull() });
  }

  /** Unanswered requests, id order. */
  allPending(where: { sessionID?: string; type?: string; directory?: string } = {}): Promise<PermissionEntity[]> {
    return this.db.getRepository(PermissionEntity).find({ where: { ...where, response: IsNull() }, order: { id: 'ASC' } });
  }

  /** Records an answer unless the request has one already; whether it did. */
  async answer(id: string, response: PermissionResponse, timeReplied: number): Promise<boolean> {
    return !!(await this.db.getRepository(PermissionEntity).update({ id, response: IsNull() }, { response, timeReplied })).affected;
  }

  async approve(sessionID: string, type: string, patterns: string[], timeCreated: number): Promise<void> {
    await this.db.getRepository(PermissionApprovalEntity).insert(patterns.map((pattern) => ({ sessionID, type, pattern, timeCreated })));
  }

  approvals(sessionID: string, type: string): Promise<PermissionApprovalEntity[]> {
    return this.db.getRepository(PermissionApprovalEntity).find({ select: { pattern: true }, where: { sessionID, type } });
  }

  /** Ids of the sessions' unanswered requests (inside the session delete's transaction). */
  pendingOf(sessionIDs: string[], manager = this.db.manager): Promise<PermissionEntity[]> {
    return manager.find(PermissionEntity, { select: { id: true }, where: { sessionID: In(sessionIDs), response: IsNull() } });
  }

  async removeSessions(sessionIDs: string[], manager = this.db.manager): Promise<void> {
    await manager.delete(PermissionEntity, { sessionID: In(sessionIDs) });
    await manager.delete(PermissionApprovalEntity, { sessionID: In(sessionIDs) });
  }
}
