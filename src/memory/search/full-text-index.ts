import { Injectable } from '@nestjs/common';
import { DEFAULT_ORG } from '../organizations/organization.entity';
import { IngestionStore, placeholders, Query, slices } from '../store';
import { VectorIndex } from './vector-index';

const STOPWORDS = new Set(
  'a an and are as at be but by did do does for from had has have how i in is it its me my of on or our so that the their them then there these they this to was we were what when where which who why will with you your'.split(' '),
);

/** Significant words of a query, lower-cased and de-duplicated (safe to splice into FTS syntax). */
export function queryTerms(q: string): string[] {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const significant = words.filter((w) => w.length > 1 && !STOPWORDS.has(w));
  return [...new Set(significant.length ? significant : words)].slice(0, 16);
}

/** Share of query terms that occur in the text (prefix match stands in for stemming). */
export function termCoverage(terms: string[], text: string): number {
  if (!terms.length) return 0;
  const lower = text.toLowerCase();
  const hits = terms.filter((t) => lower.includes(t.length > 4 ? t.slice(0, t.length - 2) : t)).length;
  return hits / terms.length;
}

export interface IndexHit {
  id: string | number;
  rank: number;
}

type Match = 'all' | 'any';

/** One ranked lookup: the query terms, how they combine, and how many hits to return after filters. */
interface Lookup {
  /** The organization searched: hits of others are dropped (and, on PostgreSQL, never read). */
  org: string;
  /**
   * Whether other organizations' rows may share the index. When they can, SQLite matches the
   * organization's token with the terms (so a busier organization cannot crowd the candidates);
   * when the default organization is the only one, that token is in every row and only costs a walk
   * of its whole posting list.
   */
  shared: boolean;
  terms: string[];
  match: Match;
  tags: string[] | undefined;
  limit: number;
}

/** What differs between the SQLite and PostgreSQL full-text indexes; the ranking strategy around it is shared. */
interface FullTextDialect {
  indexChunks(q: Query, documentId: string): Promise<unknown>;
  /** The document's container tags changed without new content (absent: the index does not hold them). */
  retagChunks?(q: Query, documentId: string): Promise<unknown>;
  /** Runs before the chunk rows are deleted (absent: their index rows go by ON DELETE CASCADE). */
  unindexChunks?(q: Query, documentId: string): Promise<unknown>;
  indexMemories(q: Query, memoryIds: string[]): Promise<unknown>;
  unindexMemories(q: Query, memoryIds: string[]): Promise<unknown>;
  /** Runs before a document's memory rows are deleted (absent: as unindexChunks). */
  unindexMemoriesOf?(q: Query, documentId: string): Promise<unknown>;
  /** Chunk ids, best first (rank: higher is better), in documents carrying one of the tags. */
  chunks(query: Query, lookup: Lookup, documentId?: string): Promise<IndexHit[]>;
  /** Memory ids, best first, in the tags' containers. The caller still checks each memory is live. */
  memories(query: Query, lookup: Lookup, includeForgotten: boolean): Promise<IndexHit[]>;
  /** Statements that index every chunk and live memory anew (a restored or moved database). */
  reindexAll(): string[];
}

const tagLike = (column: string, tags: string[] | undefined) =>
  tags?.length ? { sql: ` AND (${tags.map(() => `${column} LIKE ?`).join(' OR ')})`, params: tags.map((t) => `%"${t}"%`) } : { sql: '', params: [] as string[] };

/**
 * Rows the index ranks before any join, so joins and tag filters touch a bounded set (widened when
 * filters may discard rows).
 */
const rankedWindow = (limit: number, filtered: boolean) => Math.min(5000, filtered ? limit * 10 : limit);

/**
 * Matches worth ranking per term: twice the window, so the better half of what the index yields
 * survives. Neither index can read matches in rank order, and ranking every match of a common word is
 * what made searches slow (BM25 over 90,000 rows), so only these are ranked.
 */
const candidates = (window: number) => Math.min(1000, Math.max(100, window * 2));

/**
 * The token standing for an organization in the SQLite full-text index: `keelorg` and the hex of its id
 * (one token for FTS5's unicode61 tokenizer, which no text of a query can spell by accident), appended
 * to each row's text, so a search's terms and its organization intersect in the posting lists.
 */
const sqliteOrgToken = (org: string): string => `keelorg${Buffer.from(org, 'utf8').toString('hex')}`;
/** The same token computed in SQL from an `org_id` column. */
const SQLITE_ORG_TOKEN = (column: string) => `' keelorg' || lower(hex(${column}))`;

/**
 * SQLite FTS5 contentless tables keyed by row id. A term's newest `candidates` matches within the
 * organization come straight from the posting lists (rowid order), and BM25 ranks only those. Tags are
 * filtered by joining the document, which always has the current ones (no retagChunks).
 */
class SqliteFullText implements FullTextDialect {
  private static readonly INDEX_CHUNKS = `INSERT INTO memory_chunk_fts (rowid, content) SELECT c.id, c.content || ${SQLITE_ORG_TOKEN('d.org_id')} FROM memory_chunk c JOIN memory_document d ON d.id = c.document_id`;
  private static readonly INDEX_MEMORIES = `INSERT INTO memory_entry_fts (rowid, content) SELECT rowid, memory || ${SQLITE_ORG_TOKEN('org_id')} FROM memory_entry`;

  indexChunks(q: Query, documentId: string) {
    return this.unindexChunks(q, documentId).then(() => q(`${SqliteFullText.INDEX_CHUNKS} WHERE c.document_id = ?`, [documentId]));
  }

  unindexChunks(q: Query, documentId: string) {
    return q('DELETE FROM memory_chunk_fts WHERE rowid IN (SELECT id FROM memory_chunk WHERE document_id = ?)', [documentId]);
  }

  indexMemories(q: Query, memoryIds: string[]) {
    return q(`${SqliteFullText.INDEX_MEMORIES} WHERE id IN (${placeholders(memoryIds)})`, memoryIds);
  }

  reindexAll(): string[] {
    return [
      `INSERT INTO memory_chunk_fts (memory_chunk_fts) VALUES ('delete-all')`,
      SqliteFullText.INDEX_CHUNKS,
      `INSERT INTO memory_entry_fts (memory_entry_fts) VALUES ('delete-all')`,
      // Only live facts are indexed (see FullTextIndex.unindexMemories).
      `${SqliteFullText.INDEX_MEMORIES} WHERE is_latest = 1 AND is_forgotten = 0`,
    ];
  }

  unindexMemories(q: Query, memoryIds: string[]) {
    return q(`DELETE FROM memory_entry_fts WHERE rowid IN (SELECT rowid FROM memory_entry WHERE id IN (${placeholders(memoryIds)}))`, memoryIds);
  }

  unindexMemoriesOf(q: Query, documentId: string) {
    return q('DELETE FROM memory_entry_fts WHERE rowid IN (SELECT rowid FROM memory_entry WHERE document_id = ?)', [documentId]);
  }

  /** An FTS5 query for the terms within the organization's rows. */
  private match(terms: string[], match: Match, org: string, shared: boolean): string {
    const words = `(${terms.map((t) => `"${t}"`).join(match === 'all' ? ' ' : ' OR ')})`;
    return shared ? `${words} AND "${sqliteOrgToken(org)}"` : words;
  }

  /**
   * `(rowid, rank)` of the best `window` among the candidates: for `all`, the newest matches of every
   * term together; for `any`, the newest matches of each term separately (a rare term is not crowded
   * out by a common one), a row keeping its best rank.
   */
  private ranked(table: string, { org, shared }: Pick<Lookup, 'org' | 'shared'>, terms: string[], match: Match, window: number): { sql: string; params: unknown[] } {
    const cap = candidates(window);
    const one = `SELECT rowid, rank FROM (SELECT rowid, rank FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT ?)`;
    if (match === 'all' || terms.length === 1) {
      return { sql: `SELECT rowid, rank FROM (${one}) ORDER BY rank LIMIT ?`, params: [this.match(terms, match, org, shared), cap, window] };
    }
    return {
      sql: `SELECT rowid, min(rank) AS rank FROM (${terms.map(() => one).join(' UNION ALL ')}) GROUP BY rowid ORDER BY rank LIMIT ?`,
      params: [...terms.flatMap((t) => [this.match([t], 'all', org, shared), cap]), window],
    };
  }

  chunks(query: Query, { org, shared, terms, match, tags, limit }: Lookup, documentId?: string): Promise<IndexHit[]> {
    const tag = tagLike('d.container_tags', tags);
    // One document's chunks may rank anywhere: every match is ranked when the search is inside a document.
    // CROSS JOIN pins the order (ranked hits first); SQLite would otherwise scan the entity table and probe the index.
    const ranked = documentId
      ? { sql: 'SELECT rowid, rank FROM memory_chunk_fts WHERE memory_chunk_fts MATCH ?', params: [this.match(terms, match, org, shared)] }
      : this.ranked('memory_chunk_fts', { org, shared }, terms, match, rankedWindow(limit, !!tags?.length));
    return query<IndexHit>(
      `SELECT c.id AS id, -f.rank AS rank FROM (${ranked.sql}) f
       CROSS JOIN memory_chunk c ON c.id = f.rowid CROSS JOIN memory_document d ON d.id = c.document_id
       WHERE d.org_id = ?${tag.sql}${documentId ? ' AND c.document_id = ?' : ''} ORDER BY f.rank LIMIT ?`,
      [...ranked.params, org, ...tag.params, ...(documentId ? [documentId] : []), limit],
    );
  }

  memories(query: Query, { org, shared, terms, match, tags, limit }: Lookup, includeForgotten: boolean): Promise<IndexHit[]> {
    const tagSql = tags?.length ? ` AND m.container_tag IN (${tags.map(() => '?').join(', ')})` : '';
    const ranked = this.ranked('memory_entry_fts', { org, shared }, terms, match, rankedWindow(limit * 2, true));
    return query<IndexHit>(
      `SELECT m.id AS id, -f.rank AS rank FROM (${ranked.sql}) f
       CROSS JOIN memory_entry m ON m.rowid = f.rowid WHERE m.org_id = ? AND m.is_latest = ?${includeForgotten ? '' : ' AND m.is_forgotten = ?'}${tagSql} ORDER BY f.rank LIMIT ?`,
      [...ranked.params, org, true, ...(includeForgotten ? [] : [false]), ...(tags ?? []), limit],
    );
  }
}

/** The lexeme standing for a container tag; the text parser never yields a lexeme with a space. */
const TAG_LEXEME = 'container ';
/** `tsquery` input matching any of the tags (quoted lexemes, quotes and backslashes escaped). */
const tagQuery = (tags: string[]) => tags.map((t) => `'${(TAG_LEXEME + t).replace(/\\/g, '\\\\').replace(/'/g, "''")}'`).join(' | ');
/** The lexeme standing for the row's organization: searches intersect it in the index, so one organization never crowds out another's hits. */
const ORG_LEXEME = 'organization ';
const orgQuery = (org: string) => `'${(ORG_LEXEME + org).replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * PostgreSQL tsvector tables with GIN indexes (fastupdate off: a pending list would be scanned by
 * every search while ingestion writes). Each row's tsvector also holds one lexeme per container tag,
 * so the index intersects a query's words with its tags and a small container is never crowded out
 * by a large one. Each term brings at most `candidates` matches (in index order) and ts_rank ranks
 * only those (it reads each row's tsvector). Its search rows go with their chunks and memories by
 * ON DELETE CASCADE (no unindexChunks, unindexMemoriesOf).
 */
class PostgresFullText implements FullTextDialect {
  private static indexChunksWhere(where: string): string {
    return `INSERT INTO memory_chunk_search (chunk_id, tsv)
       SELECT c.id, to_tsvector('english', c.content) || array_to_tsvector(ARRAY(SELECT '${TAG_LEXEME}' || jsonb_array_elements_text(COALESCE(d.container_tags, '[]')::jsonb)) || ARRAY['${ORG_LEXEME}' || d.org_id])
       FROM memory_chunk c JOIN memory_document d ON d.id = c.document_id ${where}
       ON CONFLICT (chunk_id) DO UPDATE SET tsv = EXCLUDED.tsv`;
  }

  private static indexMemoriesWhere(where: string): string {
    return `INSERT INTO memory_entry_search (memory_id, tsv) SELECT id, to_tsvector('english', memory) || array_to_tsvector(ARRAY['${TAG_LEXEME}' || container_tag, '${ORG_LEXEME}' || org_id]) FROM memory_entry ${where}
       ON CONFLICT (memory_id) DO UPDATE SET tsv = EXCLUDED.tsv`;
  }

  indexChunks(q: Query, documentId: string) {
    return q(PostgresFullText.indexChunksWhere('WHERE c.document_id = ?'), [documentId]);
  }

  retagChunks(q: Query, documentId: string) {
    return this.indexChunks(q, documentId);
  }

  indexMemories(q: Query, memoryIds: string[]) {
    return q(PostgresFullText.indexMemoriesWhere(`WHERE id IN (${placeholders(memoryIds)})`), memoryIds);
  }

  reindexAll(): string[] {
    return [
      'DELETE FROM memory_chunk_search',
      PostgresFullText.indexChunksWhere(''),
      'DELETE FROM memory_entry_search',
      // Only live facts are indexed (see FullTextIndex.unindexMemories).
      PostgresFullText.indexMemoriesWhere('WHERE is_latest AND NOT is_forgotten'),
    ];
  }

  unindexMemories(q: Query, memoryIds: string[]) {
    return q(`DELETE FROM memory_entry_search WHERE memory_id IN (${placeholders(memoryIds)})`, memoryIds);
  }

  /**
   * `(key, tsv)` rows to rank, within the tags: for `all`, the first matches of every term together;
   * for `any`, the first matches of each term separately, so a rare term is not crowded out by a common one.
   */
  private candidateRows(table: string, key: string, org: string, terms: string[], match: Match, tags: string[] | undefined, cap: number): { sql: string; params: unknown[] } {
    const within = tags?.length
      ? { sql: ` && CAST(? AS tsquery) && CAST(? AS tsquery)`, params: [tagQuery(tags), orgQuery(org)] }
      : { sql: ` && CAST(? AS tsquery)`, params: [orgQuery(org)] };
    // An all-stopword query parses to an empty tsquery, which must match nothing (not every row of the tags).
    const one = (tsquery: string) => ({
      sql: `(SELECT ${key}, tsv FROM ${table} WHERE numnode(to_tsquery('english', ?)) > 0 AND tsv @@ (to_tsquery('english', ?)${within.sql}) LIMIT ?)`,
      params: [tsquery, tsquery, ...within.params, cap],
    });
    if (match === 'all' || terms.length === 1) return one(terms.join(' & '));
    const parts = terms.map(one);
    return { sql: `(SELECT DISTINCT ON (${key}) ${key}, tsv FROM (${parts.map((p) => p.sql).join(' UNION ALL ')}) u)`, params: parts.flatMap((p) => p.params) };
  }

  private tsquery(terms: string[], match: Match): string {
    return terms.join(match === 'all' ? ' & ' : ' | ');
  }

  chunks(query: Query, { org, terms, match, tags, limit }: Lookup, documentId?: string): Promise<IndexHit[]> {
    if (documentId) {
      // Inside one document every match is ranked: its chunks are few, found through the document index.
      return query<IndexHit>(
        `SELECT c.id AS id, ts_rank(s.tsv, to_tsquery('english', ?)) AS rank FROM memory_chunk c JOIN memory_chunk_search s ON s.chunk_id = c.id
         JOIN memory_document d ON d.id = c.document_id
         WHERE c.document_id = ? AND d.org_id = ? AND s.tsv @@ to_tsquery('english', ?) ORDER BY rank DESC LIMIT ?`,
        [this.tsquery(terms, match), documentId, org, this.tsquery(terms, match), limit],
      );
    }
    // The index keeps to the organization and the tags (their lexemes), so the candidates are ranked alone,
    // joining nothing (the joins tripled the planning time). Search re-checks both against each hit's
    // document when it reads it (a retag in flight).
    const rows = this.candidateRows('memory_chunk_search', 'chunk_id', org, terms, match, tags, candidates(rankedWindow(limit, false)));
    return query<IndexHit>(`SELECT h.chunk_id AS id, ts_rank(h.tsv, to_tsquery('english', ?)) AS rank FROM ${rows.sql} h ORDER BY rank DESC LIMIT ?`, [
      this.tsquery(terms, match),
      ...rows.params,
      limit,
    ]);
  }

  memories(query: Query, { org, terms, match, tags, limit }: Lookup): Promise<IndexHit[]> {
    // Only live facts are indexed (superseded and forgotten versions are unindexed); the join re-checks the organization.
    const rows = this.candidateRows('memory_entry_search', 'memory_id', org, terms, match, tags, candidates(limit));
    return query<IndexHit>(`SELECT h.memory_id AS id, ts_rank(h.tsv, to_tsquery('english', ?)) AS rank FROM ${rows.sql} h JOIN memory_entry m ON m.id = h.memory_id WHERE m.org_id = ? ORDER BY rank DESC LIMIT ?`, [
      this.tsquery(terms, match),
      ...rows.params,
      org,
      limit,
    ]);
  }
}

/** Statements that rebuild the full-text index from the chunk and memory rows (a restored or moved database). */
export function rebuildFullTextSql(dialect: 'sqlite' | 'postgres'): string[] {
  return (dialect === 'sqlite' ? new SqliteFullText() : new PostgresFullText()).reindexAll();
}

/**
 * The full-text indexes, kept outside TypeORM's entities (so schema sync never touches them), and the
 * chunk vectors beside them: every index write of a document goes through here.
 */
@Injectable()
export class FullTextIndex {
  private readonly dialect: FullTextDialect;

  constructor(
    private readonly store: IngestionStore,
    private readonly vectors: VectorIndex,
  ) {
    this.dialect = store.dialect === 'sqlite' ? new SqliteFullText() : new PostgresFullText();
  }

  /** (Re)index every chunk of a document; idempotent, so a resumed document never doubles its rows. */
  async indexChunks(q: Query, documentId: string): Promise<void> {
    await this.dialect.indexChunks(q, documentId);
    await this.vectors.indexDocument(q, documentId);
  }

  /** The document's container tags changed (content did not): its index rows follow. */
  async retagDocument(q: Query, documentId: string): Promise<void> {
    // Vectors stay as they are: the vector index reads a document's tags from the database when it searches.
    await this.dialect.retagChunks?.(q, documentId);
  }

  /** Delete a document's chunks and their index rows. */
  async deleteChunks(q: Query, documentId: string): Promise<void> {
    await this.dialect.unindexChunks?.(q, documentId);
    await this.vectors.removeDocument(q, documentId);
    await q('DELETE FROM memory_chunk WHERE document_id = ?', [documentId]);
  }

  async indexMemories(q: Query, memoryIds: string[]): Promise<void> {
    for (const slice of slices(memoryIds)) await this.dialect.indexMemories(q, slice);
  }

  /** Only live facts stay indexed: superseded and forgotten versions would crowd every ranked window. */
  async unindexMemories(q: Query, memoryIds: string[]): Promise<void> {
    for (const slice of slices(memoryIds)) await this.dialect.unindexMemories(q, slice);
  }

  async deleteMemoriesOf(q: Query, documentId: string): Promise<void> {
    await this.dialect.unindexMemoriesOf?.(q, documentId);
    await q('DELETE FROM memory_entry WHERE document_id = ?', [documentId]);
  }

  /**
   * Whether other organizations' rows may share the index with `org`'s (see Lookup.shared). Only
   * SQLite's match uses it; PostgreSQL's GIN index matches the organization's lexeme cheaply, so
   * nothing is read there. Every replica reads it per search: an organization created on another
   * replica counts at once.
   */
  private async shared(org: string): Promise<boolean> {
    if (this.store.dialect !== 'sqlite' || org !== DEFAULT_ORG) return true;
    const [row] = await this.store.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM memory_organization');
    return Number(row?.n ?? 0) > 1;
  }

  /**
   * Hits containing every term first (cheap: the index intersects posting lists); hits containing
   * any term only when fewer than `enough` have them all. Ranking every loose match of a common
   * word is what makes full-text search slow.
   */
  private async allThenAny(terms: string[], limit: number, enough: number, search: (match: Match) => Promise<IndexHit[]>): Promise<IndexHit[]> {
    if (!terms.length) return [];
    const all = await search('all');
    if (all.length >= enough || terms.length === 1) return all;
    const seen = new Set(all.map((h) => String(h.id)));
    return [...all, ...(await search('any')).filter((h) => !seen.has(String(h.id)))].slice(0, limit);
  }

  /** Up to `limit` chunk ids best matching the terms, within documents carrying one of the tags; `enough` hits with every term skip the loose pass. */
  async searchChunks(org: string, terms: string[], tags: string[] | undefined, limit: number, enough: number, documentId?: string): Promise<IndexHit[]> {
    const shared = await this.shared(org);
    return this.allThenAny(terms, limit, enough, (match) => this.dialect.chunks(this.store.query, { org, shared, terms, match, tags, limit }, documentId));
  }

  /** Memory ids best matching the terms within the tags; the caller keeps only latest, visible ones. */
  async searchMemories(org: string, terms: string[], tags: string[] | undefined, limit: number, enough: number, includeForgotten = false): Promise<IndexHit[]> {
    const shared = await this.shared(org);
    return this.allThenAny(terms, limit, enough, (match) => this.dialect.memories(this.store.query, { org, shared, terms, match, tags, limit }, includeForgotten));
  }
}
