import { MigrationInterface, QueryRunner } from 'typeorm';

export class Sessions1795322468384 implements MigrationInterface {
  name = 'Sessions1795322468384';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "message" ("id" character varying(64) NOT NULL, "session_id" character varying(64) NOT NULL, "role" character varying(16) NOT NULL, "data" text NOT NULL, "time_created" bigint NOT NULL, CONSTRAINT "PK_ba01f0a3e0123651915008bc578" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_message_session" ON "message"  ("session_id", "id") `);
    await queryRunner.query(`CREATE TABLE "part" ("id" character varying(64) NOT NULL, "session_id" character varying(64) NOT NULL, "message_id" character varying(64) NOT NULL, "data" text NOT NULL, CONSTRAINT "PK_58888debdf048d2dfe459aa59da" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_part_message" ON "part"  ("message_id", "id") `);
    await queryRunner.query(`CREATE INDEX "IDX_part_session" ON "part"  ("session_id", "message_id", "id") `);
    await queryRunner.query(`CREATE TABLE "permission" ("id" character varying(64) NOT NULL, "session_id" character varying(64) NOT NULL, "directory" text NOT NULL, "type" character varying(128) NOT NULL, "pattern" text, "message_id" character varying(64) NOT NULL, "call_id" character varying(128), "title" text NOT NULL, "metadata" text NOT NULL, "time_created" bigint NOT NULL, "response" character varying(16), "time_replied" bigint, CONSTRAINT "PK_3b8b97af9d9d8807e41e6f48362" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_permission_pending" ON "permission"  ("response", "id") `);
    await queryRunner.query(`CREATE INDEX "IDX_permission_session" ON "permission"  ("session_id") `);
    await queryRunner.query(`CREATE TABLE "permission_approval" ("id" SERIAL NOT NULL, "session_id" character varying(64) NOT NULL, "type" character varying(128) NOT NULL, "pattern" text NOT NULL, "time_created" bigint NOT NULL, CONSTRAINT "PK_5388aa98de2983483341b29b475" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_permission_approval_session" ON "permission_approval"  ("session_id", "type") `);
    await queryRunner.query(`CREATE TABLE "session" ("id" character varying(64) NOT NULL, "project_id" character varying(64) NOT NULL, "parent_id" character varying(64), "directory" text NOT NULL, "title" text NOT NULL, "version" character varying(32) NOT NULL, "summary" text, "share" text, "revert" text, "time_created" bigint NOT NULL, "time_updated" bigint NOT NULL, "time_compacting" bigint, "time_archived" bigint, CONSTRAINT "PK_f55da76ac1c3ac420f444d2ff11" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_session_parent" ON "session"  ("parent_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_session_project_updated" ON "session"  ("project_id", "time_updated") `);
    await queryRunner.query(`CREATE TABLE "session_todo" ("session_id" character varying(64) NOT NULL, "todos" text NOT NULL, "time_updated" bigint NOT NULL, CONSTRAINT "PK_2182643f76783e249cccb9b73e4" PRIMARY KEY ("session_id"))`);
    await queryRunner.query(`CREATE TABLE "session_diff" ("session_id" character varying(64) NOT NULL, "diffs" text NOT NULL, CONSTRAINT "PK_4cf0f21cdeb402a2b21381a9bac" PRIMARY KEY ("session_id"))`);
    await queryRunner.query(`CREATE TABLE "session_share" ("session_id" character varying(64) NOT NULL, "share_id" character varying(64) NOT NULL, "url" text NOT NULL, "secret" character varying(64) NOT NULL, "time_created" bigint NOT NULL, CONSTRAINT "PK_0c9f2bf8f991ea1e05cf9bf3185" PRIMARY KEY ("session_id"))`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "session_share"`);
    await queryRunner.query(`DROP TABLE "session_diff"`);
    await queryRunner.query(`DROP TABLE "session_todo"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_session_project_updated"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_session_parent"`);
    await queryRunner.query(`DROP TABLE "session"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_permission_approval_session"`);
    await queryRunner.query(`DROP TABLE "permission_approval"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_permission_session"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_permission_pending"`);
    await queryRunner.query(`DROP TABLE "permission"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_part_session"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_part_message"`);
    await queryRunner.query(`DROP TABLE "part"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_message_session"`);
    await queryRunner.query(`DROP TABLE "message"`);
  }
}
