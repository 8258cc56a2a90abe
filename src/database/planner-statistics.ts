import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** How often the tables' changes are compared with their statistics. */
const CHECK_EVERY_MS = 10_000;
/**
 * Rows changed since a table's last ANALYZE that make its statistics stale: autovacuum's rule (50 rows
 * and 10 % of the table) at twice the share, so that where autovacuum runs it normally comes first.
 */
const STALE_ROWS = 50;
const STALE_SHARE = 0.2;
/** Another replica analyzing the same table is not waited for: the next check comes soon enough. */
const LOCK_TIMEOUT = '1s';

/**
 * PostgreSQL plans every query from the statistics that ANALYZE takes, normally autovacuum's. Where
 * autovacuum is off (this machine's CI configuration) or has not reached a table since a bulk write, the
 * planner takes a table of 30,000 documents for an empty one: `GET /v3/documents/processing` walked every
 * row version of the organization (1 s a call) instead of the partial index of unfinished documents
 * (14 ms). Every 10 s the tables of Keel's schema changed by more than 50 rows and 20 % since their last
 * ANALYZE are analyzed, one at a time. Nothing is done on SQLite, whose hot queries name their index.
 */
@Injectable()
export class PlannerStatistics implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('PlannerStatistics');
  private timer?: NodeJS.Timeout;
  private running?: Promise<string[]>;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  onApplicationBootstrap(): void {
    if (this.db.options.type !== 'postgres') return;
    this.timer = setInterval(() => void this.refresh(), CHECK_EVERY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Analyzes the tables whose statistics are stale; returns their names (none while a refresh runs). */
  refresh(): Promise<string[]> {
    if (this.running) return Promise.resolve([]);
    this.running = this.analyzeStale()
      .catch((error: unknown) => {
        this.logger.warn({ msg: 'refreshing the planner statistics failed', err: String(error) });
        return [];
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async analyzeStale(): Promise<string[]> {
    const stale = await this.db.query<{ name: string; changed: string }[]>(
      `SELECT format('%I.%I', s.schemaname, s.relname) AS name, s.n_mod_since_analyze AS changed
       FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
       WHERE s.schemaname = current_schema() AND s.n_mod_since_analyze > $1 + $2 * GREATEST(c.reltuples, 0)
       ORDER BY s.n_mod_since_analyze DESC`,
      [STALE_ROWS, STALE_SHARE],
    );
    const analyzed: string[] = [];
    for (const { name, changed } of stale) {
      const started = Date.now();
      try {
        await this.db.transaction(async (manager) => {
          await manager.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
          await manager.query(`ANALYZE ${name}`);
        });
      } catch (error) {
        this.logger.debug({ msg: 'ANALYZE skipped', table: name, err: String(error) });
        continue;
      }
      analyzed.push(name);
      this.logger.debug({ msg: 'ANALYZE', table: name, changedRows: Number(changed), ms: Date.now() - started });
    }
    return analyzed;
  }
}
