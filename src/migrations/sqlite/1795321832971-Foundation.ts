import { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1795321832971 implements MigrationInterface {
  name = 'Foundation1795321832971';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "project" ("id" varchar(64) PRIMARY KEY NOT NULL, "worktree" text NOT NULL, "vcs" varchar(16), "name" text, "icon" text, "time_created" bigint NOT NULL, "time_updated" bigint NOT NULL, "time_initialized" bigint)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "project"`);
  }
}
