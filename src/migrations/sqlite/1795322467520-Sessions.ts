import { MigrationInterface, QueryRunner } from 'typeorm';

export class Sessions1795322467520 implements MigrationInterface {
  name = 'Sessions1795322467520';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "message" ("id" varchar(64) PRIMARY KEY NOT NULL, "session_id" varchar(64) NOT NULL, "role" varchar(16) NOT NULL, "data" text NOT NULL, "time_created" bigint NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "IDX_message_session" ON "message" ("session_id", "id") `);
    await queryRunner.query(`CREATE TABLE "part" ("id" varchar(64) PRIMARY KEY NOT NULL, "session_id" varchar(64) NOT NULL, "message_id" varchar(64) NOT NULL, "data" text NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "IDX_part_message" ON "part" ("message_id", "id") `);
    await queryRunner.query(`CREATE INDEX "IDX_part_session" ON "part" ("session_id", "message_id", "id") `);
    await queryRunner.query(`CREATE TABLE "permission" ("id" varchar(64) PRIMARY KEY NOT NULL, "session_id" varchar(64) NOT NULL, "directory" text NOT NULL, "type" varchar(128) NOT NULL, "pattern" text, "message_id" varchar(64) NOT NULL, "call_id" varchar(128), "title" text NOT NULL, "metadata" text NOT NULL, "time_created" bigint NOT NULL, "response" varchar(16), "time_replied" bigint)`);
    await queryRunner.query(`CREATE INDEX "IDX_permission_pending" ON "permission" ("response", "id") `);
    await queryRunner.query(`CREATE INDEX "IDX_permission_session" ON "permission" ("session_id") `);
    await queryRunner.query(`CREATE TABLE "permission_approval" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "session_id" varchar(64) NOT NULL, "type" varchar(128) NOT NULL, "pattern" text NOT NULL, "time_created" bigint NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "IDX_permission_approval_session" ON "permission_approval" ("session_id", "type") `);
    await queryRunner.query(`CREATE TABLE "session" ("id" varchar(64) PRIMARY KEY NOT NULL, "project_id" varchar(64) NOT NULL, "parent_id" varchar(64), "directory" text NOT NULL, "title" text NOT NULL, "version" varchar(32) NOT NULL, "summary" text, "share" text, "revert" text, "time_created" bigint NOT NULL, "time_updated" bigint NOT NULL, "time_compacting" bigint, "time_archived" bigint)`);
    await queryRunner.query(`CREATE INDEX "IDX_session_parent" ON "session" ("parent_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_session_project_updated" ON "session" ("project_id", "time_updated") `);
    await queryRunner.query(`CREATE TABLE "session_todo" ("session_id" varchar(64) PRIMARY KEY NOT NULL, "todos" text NOT NULL, "time_updated" bigint NOT NULL)`);
    await queryRunner.query(`CREATE TABLE "session_diff" ("session_id" varchar(64) PRIMARY KEY NOT NULL, "diffs" text NOT NULL)`);
    await queryRunner.query(`CREATE TABLE "session_share" ("session_id" varchar(64) PRIMARY KEY NOT NULL, "share_id" varchar(64) NOT NULL, "url" text NOT NULL, "secret" varchar(64) NOT NULL, "time_created" bigint NOT NULL)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "session_share"`);
    await queryRunner.query(`DROP TABLE "session_diff"`);
    await queryRunner.query(`DROP TABLE "session_todo"`);
    await queryRunner.query(`DROP INDEX "IDX_session_project_updated"`);
    await queryRunner.query(`DROP INDEX "IDX_session_parent"`);
    await queryRunner.query(`DROP TABLE "session"`);
    await queryRunner.query(`DROP INDEX "IDX_permission_approval_session"`);
    await queryRunner.query(`DROP TABLE "permission_approval"`);
    await queryRunner.query(`DROP INDEX "IDX_permission_session"`);
    await queryRunner.query(`DROP INDEX "IDX_permission_pending"`);
    await queryRunner.query(`DROP TABLE "permission"`);
    await queryRunner.query(`DROP INDEX "IDX_part_session"`);
    await queryRunner.query(`DROP INDEX "IDX_part_message"`);
    await queryRunner.query(`DROP TABLE "part"`);
    await queryRunner.query(`DROP INDEX "IDX_message_session"`);
    await queryRunner.query(`DROP TABLE "message"`);
  }
}
