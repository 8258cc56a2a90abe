import { MigrationInterface, QueryRunner } from 'typeorm';

export class PipelineWorkerClaims1795590332813 implements MigrationInterface {
  name = 'PipelineWorkerClaims1795590332813';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "memory_worker" ("id" character varying(36) NOT NULL, "beat_at" bigint NOT NULL, CONSTRAINT "PK_c3fd1457bf2401138ac6147f917" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`ALTER TABLE "memory_document" ADD "claimed_by" character varying(36)`);
    await queryRunner.query(
      `CREATE INDEX "IDX_memory_document_claimed_by" ON "memory_document"  ("claimed_by") WHERE claimed_by IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_document_claimed_by"`);
    await queryRunner.query(`ALTER TABLE "memory_document" DROP COLUMN "claimed_by"`);
    await queryRunner.query(`DROP TABLE "memory_worker"`);
  }
}
