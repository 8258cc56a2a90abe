import { Injectable } from '@nestjs/common';
import { IngestionStore, Query } from '../store';

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

/**
 * The full-text indexes, kept outside TypeORM's entities (so schema sync never touches them):
 * SQLite FTS5 contentless tables keyed by row id, PostgreSQL tsvector tables with GIN indexes.
 */
@Injectable()
export class FullTextIndex {
  constructor(private readonly store: IngestionStore) {}

  private get sqlite(): boolean {
    return this.store.dialect === 'sqlite';
  }

  /** (Re)index every chunk of a document; idempotent, so a resumed document never doubles its rows. */
  async indexChunks(q: Query, documentId: string): Promise<void> {
    if (this.sqlite) {
      await q('DELETE FROM memory_chunk_fts WHERE rowid IN (SELECT id FROM memory_chunk WHERE document_id = ?)', [documentId]);
      await q('INSERT INTO memory_chunk_fts (rowid, content) SELECT id, content FROM memory_chunk WHERE document_id = ?', [documentId]);
    } else {
      await q(
        `INSERT INTO memory_chunk_search (chunk_id, tsv) SELECT id, to_tsvector('english', content) FROM memory_chunk WHERE document_id = ?
         ON CONFLICT (chunk_id) DO UPDATE SET tsv = EXCLUDED.tsv`,
        [documentId],
      );
    }
  }

  /** Delete a document's chunks and their index rows. */
  async deleteChunks(q: Query, documentId: string): Promise<void> {
    if (this.sqlite) await q('DELETE FROM memory_chunk_fts WHERE rowid IN (SELECT id FROM memory_chunk WHERE document_id = ?)', [documentId]);
    // PostgreSQL: memory_chunk_search rows go by ON DELETE CASCADE.
    await q('DELETE FROM memory_chunk WHERE document_id = ?', [documentId]);
  }

  async indexMemory(q: Query, memoryId: string): Promise<void> {
    if (this.sqlite) {
      await q('INSERT INTO memory_entry_fts (rowid, content) SELECT rowid, memory FROM memory_entry WHERE id = ?', [memoryId]);
    } else {
      await q(
        `INSERT INTO memory_entry_search (memory_id, tsv) SELECT id, to_tsvector('english', memory) FROM memory_entry WHERE id = ?
         ON CONFLICT (memory_id) DO UPDATE SET tsv = EXCLUDED.tsv`,
        [memoryId],
      );
    }
  }

  /** Only live facts stay indexed: superseded and forgotten versions would crowd every ranked window. */
  async unindexMemory(q: Query, memoryId: string): Promise<void> {
    if (this.sqlite) await q('DELETE FROM memory_entry_fts WHERE rowid = (SELECT rowid FROM memory_entry WHERE id = ?)', [memoryId]);
    else await q('DELETE FROM memory_entry_search WHERE memory_id = ?', [memoryId]);
  }

  async deleteMemoriesOf(q: Query, documentId: string): Promise<void> {
    if (this.sqlite) await q('DELETE FROM memory_entry_fts WHERE rowid IN (SELECT rowid FROM memory_entry WHERE document_id = ?)', [documentId]);
    await q('DELETE FROM memory_entry WHERE document_id = ?', [documentId]);
  }

  private tagClause(column: string, tags: string[] | undefined): { sql: string; params: string[] } {
    if (!tags?.length) return { sql: '', params: [] };
    return { sql: ` AND (${tags.map(() => `${column} LIKE ?`).join(' OR ')})`, params: tags.map((t) => `%"${t}"%`) };
  }

  /**
   * Hits containing every term first (cheap: the index intersects posting lists); hits containing
   * any term only when fewer than `enough` have them all. Ranking every loose match of a common
   * word is what makes full-text search slow.
   */
  private async allThenAny(terms: string[], limit: number, enough: number, search: (match: 'all' | 'any') => Promise<IndexHit[]>): Promise<IndexHit[]> {
    if (!terms.length) return [];
    const all = await search('all');
    if (all.length >= enough || terms.length === 1) return all;
    const seen = new Set(all.map((h) => String(h.id)));
    return [...all, ...(await search('any')).filter((h) => !seen.has(String(h.id)))].slice(0, limit);
  }

  private ftsQuery(terms: string[], match: 'all' | 'any'): string {
    if (this.sqlite) return terms.map((t) => `"${t}"`).join(match === 'all' ? ' ' : ' OR ');
    return terms.join(match === 'all' ? ' & ' : ' | ');
  }

  /** Up to `limit` chunk ids best matching the terms, within documents carrying one of the tags; `enough` hits with every term skip the loose pass. */
  searchChunks(terms: string[], tags: string[] | undefined, limit: number, enough: number, documentId?: string): Promise<IndexHit[]> {
    return this.allThenAny(terms, limit, enough, (match) => this.matchChunks(this.ftsQuery(terms, match), tags, limit, documentId));
  }

  /**
   * Rows the index ranks before any join: FTS5 keeps only the top N of `ORDER BY rank LIMIT N`, so
   * the joins and tag filters then touch a bounded set (widened when filters may discard rows).
   */
  private window(limit: number, filtered: boolean): number {
    return Math.min(5000, filtered ? limit * 10 : limit);
  }

  private async matchChunks(query: string, tags: string[] | undefined, limit: number, documentId?: string): Promise<IndexHit[]> {
    const tag = this.tagClause('d.container_tags', tags);
    const doc = documentId ? ' AND c.document_id = ?' : '';
    const docParams = documentId ? [documentId] : [];
    if (this.sqlite) {
      // One document's chunks may rank anywhere: without a window when the search is inside a document.
      // CROSS JOIN pins the order (ranked hits first); SQLite would otherwise scan the entity table and probe the index.
      const ranked = documentId
        ? 'SELECT rowid, rank FROM memory_chunk_fts WHERE memory_chunk_fts MATCH ?'
        : 'SELECT rowid, rank FROM memory_chunk_fts WHERE memory_chunk_fts MATCH ? ORDER BY rank LIMIT ?';
      return this.store.query<IndexHit>(
        `SELECT c.id AS id, -f.rank AS rank FROM (${ranked}) f
         CROSS JOIN memory_chunk c ON c.id = f.rowid CROSS JOIN memory_document d ON d.id = c.document_id
         WHERE 1 = 1${tag.sql}${doc} ORDER BY f.rank LIMIT ?`,
        [query, ...(documentId ? [] : [this.window(limit, !!tags?.length)]), ...tag.params, ...docParams, limit],
      );
    }
    const ranked = `SELECT s.chunk_id, ts_rank(s.tsv, query) AS rank FROM memory_chunk_search s, to_tsquery('english', ?) query WHERE s.tsv @@ query${
      documentId ? '' : ' ORDER BY rank DESC LIMIT ?'
    }`;
    return this.store.query<IndexHit>(
      `SELECT c.id AS id, f.rank AS rank FROM (${ranked}) f
       JOIN memory_chunk c ON c.id = f.chunk_id JOIN memory_document d ON d.id = c.document_id
       WHERE 1 = 1${tag.sql}${doc} ORDER BY f.rank DESC LIMIT ?`,
      [query, ...(documentId ? [] : [this.window(limit, !!tags?.length)]), ...tag.params, ...docParams, limit],
    );
  }

  /** Latest, unforgotten (unless asked) memory ids best matching the terms within the tags. */
  searchMemories(terms: string[], tags: string[] | undefined, limit: number, enough: number, includeForgotten = false): Promise<IndexHit[]> {
    return this.allThenAny(terms, limit, enough, (match) => this.matchMemories(this.ftsQuery(terms, match), tags, limit, includeForgotten));
  }

  private async matchMemories(query: string, tags: string[] | undefined, limit: number, includeForgotten: boolean): Promise<IndexHit[]> {
    const tagSql = tags?.length ? ` AND m.container_tag IN (${tags.map(() => '?').join(', ')})` : '';
    const live = `m.is_latest = ?${includeForgotten ? '' : ' AND m.is_forgotten = ?'}`;
    const liveParams = includeForgotten ? [true] : [true, false];
    // Superseded and forgotten versions stay indexed, so the ranked window is wider than the page.
    const window = this.window(limit * 2, true);
    if (this.sqlite) {
      return this.store.query<IndexHit>(
        `SELECT m.id AS id, -f.rank AS rank FROM (SELECT rowid, rank FROM memory_entry_fts WHERE memory_entry_fts MATCH ? ORDER BY rank LIMIT ?) f
         CROSS JOIN memory_entry m ON m.rowid = f.rowid WHERE ${live}${tagSql} ORDER BY f.rank LIMIT ?`,
        [query, window, ...liveParams, ...(tags ?? []), limit],
      );
    }
    return this.store.query<IndexHit>(
      `SELECT m.id AS id, f.rank AS rank FROM (SELECT s.memory_id, ts_rank(s.tsv, query) AS rank FROM memory_entry_search s, to_tsquery('english', ?) query
       WHERE s.tsv @@ query ORDER BY rank DESC LIMIT ?) f JOIN memory_entry m ON m.id = f.memory_id WHERE ${live}${tagSql} ORDER BY f.rank DESC LIMIT ?`,
      [query, window, ...liveParams, ...(tags ?? []), limit],
    );
  }
}
