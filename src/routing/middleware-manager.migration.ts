import type { QueryRunner } from 'typeorm';
import {
  addColumnSql,
  createTableSql,
  DEFAULT_ROWS,
  MIDDLEWARE_MANAGER_TABLES,
  seedSql,
  SqlDialect,
} from './middleware-manager.schema';

/**
 * Idempotent like v3's migrations.sql: tables only when absent, later columns only when absent
 * (v3's runPostMigrationUpdates), default rows only when their id is absent.
 */
export async function adoptOrCreateSchema(queryRunner: QueryRunner, dialect: SqlDialect): Promise<void> {
  for (const table of MIDDLEWARE_MANAGER_TABLES) {
    await queryRunner.query(createTableSql(table, dialect));
    for (const column of table.columns.filter((c) => c.addable)) {
      if (!(await queryRunner.hasColumn(table.name, column.name))) {
        await queryRunner.query(addColumnSql(table, column, dialect));
      }
    }
  }
  for (const row of DEFAULT_ROWS) {
    await queryRunner.query(seedSql(dialect, row.table), [row.id, row.name, row.type, row.config]);
  }
}

export async function dropSchema(queryRunner: QueryRunner): Promise<void> {
  for (const table of [...MIDDLEWARE_MANAGER_TABLES].reverse()) {
    await queryRunner.query(`DROP TABLE IF EXISTS "${table.name}"`);
  }
}
