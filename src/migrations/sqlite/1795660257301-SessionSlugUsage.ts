import { MigrationInterface, QueryRunner } from 'typeorm';

export class SessionSlugUsage1795660257301 implements MigrationInterface {
  name = 'SessionSlugUsage1795660257301';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_session_project_updated"`);
    await queryRunner.query(`DROP INDEX "IDX_session_parent"`);
    await queryRunner.query(`CREATE TABLE "temporary_session" ("id" varchar(64) PRIMARY KEY NOT NULL, "project_id" varchar(64) NOT NULL, "parent_id" varchar(64), "directory" text NOT NULL, "title" text NOT NULL, "version" varchar(32) NOT NULL, "summary" text, "share" text, "revert" text, "time_created" bigint NOT NULL, "time_updated" bigint NOT NULL, "time_compacting" bigint, "time_archived" bigint, "slug" varchar(128), "path" text, "agent" varchar(256), "model" text, "usage" text)`);
    await queryRunner.query(`INSERT INTO "temporary_session"("id", "project_id", "parent_id", "directory", "title", "version", "summary", "share", "revert", "time_created", "time_updated", "time_compacting", "time_archived") SELECT "id", "project_id", "parent_id", "directory", "title", "version", "summary", "share", "revert", "time_created", "time_updated", "time_compacting", "time_archived" FROM "session"`);
    await queryRunner.query(`DROP TABLE "session"`);
    await queryRunner.query(`ALTER TABLE "temporary_session" RENAME TO "session"`);
    await queryRunner.query(`CREATE INDEX "IDX_session_project_updated" ON "session" ("project_id", "time_updated") `);
    await queryRunner.query(`CREATE INDEX "IDX_session_parent" ON "session" ("parent_id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_session_parent"`);
    await queryRunner.query(`DROP INDEX "IDX_session_project_updated"`);
    await queryRunner.query(`ALTER TABLE "session" RENAME TO "temporary_session"`);
    await queryRunner.query(`CREATE TABLE "session" ("id" varchar(64) PRIMARY KEY NOT NULL, "project_id" varchar(64) NOT NULL, "parent_id" varchar(64), "directory" text NOT NULL, "title" text NOT NULL, "version" varchar(32) NOT NULL, "summary" text, "share" text, "revert" text, "time_created" bigint NOT NULL, "time_updated" bigint NOT NULL, "time_compacting" bigint, "time_archived" bigint)`);
    await queryRunner.query(`INSERT INTO "session"("id", "project_id", "parent_id", "directory", "title", "version", "summary", "share", "revert", "time_created", "time_updated", "time_compacting", "time_archived") SELECT "id", "project_id", "parent_id", "directory", "title", "version", "summary", "share", "revert", "time_created", "time_updated", "time_compacting", "time_archived" FROM "temporary_session"`);
    await queryRunner.query(`DROP TABLE "temporary_session"`);
    await queryRunner.query(`CREATE INDEX "IDX_session_parent" ON "session" ("parent_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_session_project_updated" ON "session" ("project_id", "time_updated") `);
  }
}
