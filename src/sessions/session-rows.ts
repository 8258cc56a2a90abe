import { SessionEntity, SessionModel, SessionRevert, SessionSummary, SessionUsage } from './session.entity';

/** The session columns a list or a lookup reads, in raw SQL (not through the entity: `GET /session` is a hot read). */
export const SESSION_COLUMNS =
  '"id", "project_id", "parent_id", "directory", "slug", "path", "agent", "model", "usage", "title", "version", ' +
  '"summary", "share", "revert", "time_created", "time_updated", "time_compacting", "time_archived"';

export type SessionRow = Record<string, string | number | null>;

const json = <T>(text: string | number | null): T | null => (typeof text === 'string' ? (JSON.parse(text) as T) : null);
const epoch = (value: string | number | null): number | null => (value === null ? null : Number(value));

/** A raw row of SESSION_COLUMNS as an entity (skipping TypeORM's hydration). */
export function fromRow(row: SessionRow): SessionEntity {
  return Object.assign(new SessionEntity(), {
    id: row.id as string,
    projectID: row.project_id as string,
    parentID: row.parent_id as string | null,
    directory: row.directory as string,
    slug: row.slug as string | null,
    path: row.path as string | null,
    agent: row.agent as string | null,
    model: json<SessionModel>(row.model),
    usage: json<SessionUsage>(row.usage),
    title: row.title as string,
    version: row.version as string,
    summary: json<SessionSummary>(row.summary),
    share: json<{ url: string }>(row.share),
    revert: json<SessionRevert>(row.revert),
    timeCreated: Number(row.time_created),
    timeUpdated: Number(row.time_updated),
    timeCompacting: epoch(row.time_compacting),
    timeArchived: epoch(row.time_archived),
  });
}
