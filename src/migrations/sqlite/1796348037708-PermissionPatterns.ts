import { MigrationInterface, QueryRunner } from 'typeorm';

/** What a permission request asks about (opencode 1.1+'s `patterns`), beside the keys an approval remembers. */
export class PermissionPatterns1796348037708 implements MigrationInterface {
  name = 'PermissionPatterns1796348037708';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "permission" ADD COLUMN "patterns" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "permission" DROP COLUMN "patterns"`);
  }
}
