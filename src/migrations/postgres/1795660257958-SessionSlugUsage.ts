import { MigrationInterface, QueryRunner } from 'typeorm';

export class SessionSlugUsage1795660257958 implements MigrationInterface {
  name = 'SessionSlugUsage1795660257958';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "session" ADD "slug" character varying(128)`);
    await queryRunner.query(`ALTER TABLE "session" ADD "path" text`);
    await queryRunner.query(`ALTER TABLE "session" ADD "agent" character varying(256)`);
    await queryRunner.query(`ALTER TABLE "session" ADD "model" text`);
    await queryRunner.query(`ALTER TABLE "session" ADD "usage" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "session" DROP COLUMN "usage"`);
    await queryRunner.query(`ALTER TABLE "session" DROP COLUMN "model"`);
    await queryRunner.query(`ALTER TABLE "session" DROP COLUMN "agent"`);
    await queryRunner.query(`ALTER TABLE "session" DROP COLUMN "path"`);
    await queryRunner.query(`ALTER TABLE "session" DROP COLUMN "slug"`);
  }
}
