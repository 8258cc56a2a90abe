import { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1795321833087 implements MigrationInterface {
  name = 'Foundation1795321833087';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "project" ("id" character varying(64) NOT NULL, "worktree" text NOT NULL, "vcs" character varying(16), "name" text, "icon" text, "time_created" bigint NOT NULL, "time_updated" bigint NOT NULL, "time_initialized" bigint, CONSTRAINT "PK_4d68b1358bb5b766d3e78f32f57" PRIMARY KEY ("id"))`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "project"`);
  }
}
