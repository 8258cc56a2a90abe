import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Between, In, Repository } from 'typeorm';
import { IngestionStore, placeholders, Query, slices } from '../store';
import { MemoryEntry } from './memory-entry.entity';

/** A latest memory as dreaming compares facts with it, with its source document's metadata (JSON). */
export interface LatestMemoryRow {
  id: string;
  memory: string;
  version: number;
  is_static: boolean | number;
  root_memory_id: string | null;
  doc_metadata: string | null;
  fact_key: string;
}

const INSERT_COLUMNS = [
  'id', 'org_id', 'memory', 'container_tag', 'fact_key', 'document_id', 'version', 'is_latest', 'is_forgotten', 'is_static', 'is_inference',
  'parent_memory_id', 'root_memory_id', 'relation', 'source_count', 'metadata', 'forget_after', 'forget_reason', 'created_at', 'updated_at',
];
const ROW = `(${placeholders(INSERT_COLUMNS)})`;
const LATEST = `SELECT m.id, m.memory, m.version, m.is_static, m.root_memory_id, d.metadata AS doc_metadata, m.fact_key FROM memory_entry m
  LEFT JOIN memory_document d ON d.id = m.document_id
  WHERE m.org_id = ? AND m.container_tag = ? AND m.is_latest = ? AND m.is_forgotten = ?`;

/** The namespace of the container-tag locks among PostgreSQL's advisory locks ('keel'). */
const TAG_LOCK = 0x6b65656c;

/** The SQL of memory entries: every read and write of `memory_entry` the memory features make. */
@Injectable()
export class MemoryEntryRepository {
  constructor(
    private readonly store: IngestionStore,
    @InjectRepository(MemoryEntry) private readonly entries: Repository<MemoryEntry>,
  ) {}

  /**
   * Writers of one container tag's memories take turns until their transaction ends. Two documents
   * of a tag stating the same facts supersede each other's memories: without this, two replicas (or
   * two slots) doing so at once took the same rows' locks in opposite orders and PostgreSQL ended one
   * with `deadlock detected`, failing its document. (SQLite's writers are serialised already.)
   */
  async lockTag(q: Query, org: string, tag: string): Promise<void> {
    if (this.store.dialect !== 'postgres') return;
    await q('SELECT pg_advisory_xact_lock(?, hashtext(?))', [TAG_LOCK, `${org}\n${tag}`]);
  }

  /** The memory with this id, when it is a latest, not forgotten memory of the tag. */
  async latestById(q: Query, org: string, tag: string, id: string): Promise<LatestMemoryRow | undefined> {
    const [row] = await q<LatestMemoryRow>(`${LATEST} AND m.id = ?`, [org, tag, true, false, id]);
    return row;
  }

  /** The latest, not forgotten memories of a tag with one of these fact keys. */
  async latestWithKeys(q: Query, org: string, tag: string, keys: string[]): Promise<LatestMemoryRow[]> {
    const rows: LatestMemoryRow[] = [];
    for (const slice of slices(keys)) rows.push(...(await q<LatestMemoryRow>(`${LATEST} AND m.fact_key IN (${placeholders(slice)})`, [org, tag, true, false, ...slice])));
    return rows;
  }

  /** The tag's most recently updated latest, not forgotten memories. */
  recentLatest(org: string, tag: string, limit: number): Promise<LatestMemoryRow[]> {
    return this.store.query<LatestMemoryRow>(`${LATEST} ORDER BY m.updated_at DESC LIMIT ?`, [org, tag, true, false, limit]);
  }

  async insertAll(q: Query, entries: MemoryEntry[]): Promise<void> {
    for (const slice of slices(entries, 100)) {
      await q(
        `INSERT INTO memory_entry (${INSERT_COLUMNS.join(', ')}) VALUES ${slice.map(() => ROW).join(', ')}`,
        slice.flatMap((m) => [
          m.id, m.orgId, m.memory, m.containerTag, m.factKey, m.documentId, m.version, m.isLatest, m.isForgotten, m.isStatic, m.isInference,
          m.parentMemoryId, m.rootMemoryId, m.relation, m.sourceCount, JSON.stringify(m.metadata ?? {}), m.forgetAfter, m.forgetReason, m.createdAt, m.updatedAt,
        ]),
      );
    }
  }

  /** One more source states each fact (a memory named twice, two more). */
  async strengthen(q: Query, ids: string[], now: number): Promise<void> {
    const times = new Map<string, number>();
    for (const id of ids) times.set(id, (times.get(id) ?? 0) + 1);
    for (const [id, n] of times) await q('UPDATE memory_entry SET source_count = source_count + ?, updated_at = ? WHERE id = ? RETURNING id', [n, now, id]);
  }

  /** Newer versions take these memories' places (the caller holds the tag's lock). */
  async supersedeAll(q: Query, ids: string[], now: number): Promise<void> {
    for (const slice of slices(ids)) await q(`UPDATE memory_entry SET is_latest = ?, updated_at = ? WHERE id IN (${placeholders(slice)}) RETURNING id`, [false, now, ...slice]);
  }

  /** A newer version takes its place; false when one already had (another writer was first). */
  async supersede(q: Query, id: string, now: number): Promise<boolean> {
    const rows = await q('UPDATE memory_entry SET is_latest = ?, updated_at = ? WHERE id = ? AND is_latest = ? RETURNING id', [false, now, id, true]);
    return rows.length > 0;
  }

  async forget(q: Query, id: string, reason: string | null, now: number): Promise<void> {
    await q('UPDATE memory_entry SET is_forgotten = ?, forget_reason = ?, updated_at = ? WHERE id = ? RETURNING id', [true, reason, now, id]);
  }

  async unforget(q: Query, id: string, now: number): Promise<void> {
    await q('UPDATE memory_entry SET is_forgotten = ?, forget_reason = NULL, updated_at = ? WHERE id = ? RETURNING id', [false, now, id]);
  }

  /** By id within a tag, or the latest with exactly this content. */
  findInTag(org: string, tag: string, by: { id?: string; content?: string }): Promise<MemoryEntry | null> {
    return by.id
      ? this.entries.findOneBy({ orgId: org, id: by.id, containerTag: tag })
      : this.entries.findOneBy({ orgId: org, memory: by.content!, containerTag: tag, isLatest: true });
  }

  /** The newest latest, not forgotten memories of a tag. */
  latestOfTag(org: string, tag: string, take: number): Promise<MemoryEntry[]> {
    return this.entries.find({ where: { orgId: org, containerTag: tag, isLatest: true, isForgotten: false }, order: { updatedAt: 'DESC' }, take });
  }

  /** Every latest memory (forgotten ones too) of the tags, sorted, ties by id. */
  latestInTags(org: string, tags: string[], sort: 'createdAt' | 'updatedAt', order: 'asc' | 'desc'): Promise<MemoryEntry[]> {
    return this.entries.find({ where: { orgId: org, containerTag: In(tags), isLatest: true }, order: { [sort]: order === 'asc' ? 'ASC' : 'DESC', id: 'ASC' } });
  }

  /** By primary key, the organization checked here (see SearchService.scoredChunks). */
  async byIds(org: string, ids: string[]): Promise<MemoryEntry[]> {
    return ids.length ? (await this.entries.findBy({ id: In(ids) })).filter((m) => m.orgId === org) : [];
  }

  /**
   * The versions of a chain within `span` of a version (the root included), oldest first. By the chain's
   * index and the primary key, the organization checked here as in `byIds`: with `org_id` in the SQL,
   * PostgreSQL's planner (statistics not yet analyzed after a bulk ingest) ANDed the organization's
   * index, every row of a one-organization server: 18 ms a chain instead of 0.2 ms.
   */
  async chainAround(org: string, root: string, version: number, span: number): Promise<MemoryEntry[]> {
    const chain = await this.entries.find({ where: [{ rootMemoryId: root, version: Between(version - span, version + span) }, { id: root }], order: { version: 'ASC' } });
    return chain.filter((m) => m.orgId === org);
  }

  ofDocument(documentId: string): Promise<MemoryEntry[]> {
    return this.entries.find({ where: { documentId }, order: { createdAt: 'ASC' } });
  }

  /** How many latest, not forgotten memories each container tag holds. */
  async countByTag(org: string): Promise<Map<string, number>> {
    const rows = await this.store.query<{ tag: string; n: number | string }>(
      'SELECT container_tag AS tag, COUNT(*) AS n FROM memory_entry WHERE org_id = ? AND is_latest = ? AND is_forgotten = ? GROUP BY container_tag',
      [org, true, false],
    );
    return new Map(rows.map((row) => [row.tag, Number(row.n)]));
  }
}
