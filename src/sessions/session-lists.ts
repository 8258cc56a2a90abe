import { DataSource } from 'typeorm';
import { SerializedJson } from '../common/serialized-json';
import { SharedReads } from '../database/shared-reads';
import { Session, toSession } from './session.entity';
import { SESSION_COLUMNS, SessionRow, fromRow } from './session-rows';

/**
 * `GET /session` is the hottest read, and building and serializing a project's sessions is most of its
 * cost. A list is kept while no other process can write sessions: always on SQLite (this process is
 * the only writer), and on PostgreSQL while this replica hears no other on the event relay. Otherwise
 * each read goes to the database, keeping each session's JSON under the row's version.
 */
export interface SessionLists {
  /** The project's sessions, most recently updated first. */
  list(projectID: string): Promise<SerializedJson<Session[]>>;
  /** A session of the project was written by this process. */
  changed(projectID: string): void;
}

/**
 * Whether a kept list may answer: a value that stays the same for as long as no other process writes
 * sessions (a list kept under another value is read again), or undefined while one may.
 */
export type SoleWriter = () => number | undefined;

export function sessionLists(dataSource: DataSource, soleWriter: SoleWriter): SessionLists {
  if (dataSource.options.type !== 'postgres') {
    const sql = `SELECT ${SESSION_COLUMNS} FROM "session" WHERE "project_id" = ? ORDER BY "time_updated" DESC, "id" ASC`;
    const read = async (projectID: string) =>
      SerializedJson.of((await dataSource.query<SessionRow[]>(sql, [projectID])).map((row) => toSession(fromRow(row))));
    return new KeptSessionLists(read, () => 0);
  }
  const versioned = new VersionedSessionLists(dataSource);
  return new KeptSessionLists((projectID) => versioned.list(projectID), soleWriter);
}

/** Projects whose session list is kept. */
const KEPT_PROJECTS = 32;

/**
 * A project's list (with its JSON, serialized at most once) is kept until one of its sessions is
 * written here, or until another process may have written one (`soleWriter` changes). `generation`
 * counts writes per project, so a list read while a write ran is not kept.
 */
export class KeptSessionLists implements SessionLists {
  private readonly kept = new Map<string, { soleWriter: number; list: SerializedJson<Session[]> }>();
  private readonly generation = new Map<string, number>();

  constructor(
    private readonly read: (projectID: string) => Promise<SerializedJson<Session[]>>,
    private readonly soleWriter: SoleWriter,
  ) {}

  async list(projectID: string): Promise<SerializedJson<Session[]>> {
    const soleWriter = this.soleWriter();
    if (soleWriter === undefined) return this.read(projectID);
    const kept = this.kept.get(projectID);
    if (kept?.soleWriter === soleWriter) return kept.list;
    const generation = this.generation.get(projectID) ?? 0;
    const list = await this.read(projectID);
    if (generation === (this.generation.get(projectID) ?? 0) && this.soleWriter() === soleWriter) {
      this.kept.delete(projectID);
      if (this.kept.size >= KEPT_PROJECTS) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(projectID, { soleWriter, list });
    }
    return list;
  }

  changed(projectID: string): void {
    this.generation.set(projectID, (this.generation.get(projectID) ?? 0) + 1);
    this.kept.delete(projectID);
  }
}

/** Sessions whose JSON PostgreSQL's lists keep (about 0.5 KB each). */
const ROW_JSON_LIMIT = 50_000;

/**
 * PostgreSQL while other replicas may write: concurrent lists of one project share one read,
 * each answered by a read that started after it arrived (see SharedReads). A read takes every row's id
 * and version (`xmin`, the transaction that wrote that version: every write, on any replica, makes a new
 * one) and reads whole only the rows whose JSON this process does not hold at that version: most of a
 * read's cost was parsing, converting and serializing rows that had not changed.
 */
class VersionedSessionLists {
  private readonly rowJson = new Map<string, { version: string; json: string }>();
  private readonly shared = new SharedReads<string, SerializedJson<Session[]>>((projectID) => this.read(projectID));
  private readonly sql = {
    versions: `SELECT "id", s.xmin::text AS "row_version" FROM "session" s WHERE "project_id" = $1 ORDER BY "time_updated" DESC, "id" ASC`,
    rows: `SELECT ${SESSION_COLUMNS}, s.xmin::text AS "row_version" FROM "session" s WHERE "id" = ANY($1)`,
  };

  constructor(private readonly dataSource: DataSource) {}

  list(projectID: string): Promise<SerializedJson<Session[]>> {
    return this.shared.get(projectID);
  }

  private async read(projectID: string): Promise<SerializedJson<Session[]>> {
    const listed = await this.dataSource.query<{ id: string; row_version: string }[]>(this.sql.versions, [projectID]);
    const stale = listed.filter(({ id, row_version }) => this.rowJson.get(id)?.version !== row_version).map(({ id }) => id);
    // Read after the versions: a row written in between comes as it is now, and a deleted one not at all.
    const fresh = new Map<string, string>();
    if (stale.length > 0) {
      const rows = await this.dataSource.query<(SessionRow & { row_version: string })[]>(this.sql.rows, [stale]);
      if (this.rowJson.size + rows.length > ROW_JSON_LIMIT) this.rowJson.clear();
      for (const row of rows) {
        const json = JSON.stringify(toSession(fromRow(row)));
        fresh.set(row.id as string, json);
        this.rowJson.set(row.id as string, { version: row.row_version, json });
      }
    }
    const parts: string[] = [];
    for (const { id, row_version } of listed) {
      const known = this.rowJson.get(id);
      const json = known?.version === row_version ? known.json : fresh.get(id);
      if (json !== undefined) parts.push(json);
    }
    return SerializedJson.ofJson(`[${parts.join(',')}]`);
  }
}
