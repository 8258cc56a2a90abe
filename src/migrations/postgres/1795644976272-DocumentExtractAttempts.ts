import { MigrationInterface, QueryRunner } from 'typeorm';

export class DocumentExtractAttempts1795644976272 implements MigrationInterface {
  name = 'DocumentExtractAttempts1795644976272';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "memory_document" ADD "extract_attempts" integer NOT NULL DEFAULT '0'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "memory_document" DROP COLUMN "extract_attempts"`);
  }
}
