import { MigrationInterface, QueryRunner } from 'typeorm';

export class MemoryDocumentUnfinished1795534284886 implements MigrationInterface {
  name = 'MemoryDocumentUnfinished1795534284886';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_memory_document_unfinished" ON "memory_document" ("created_at") WHERE status NOT IN ('done', 'failed')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_memory_document_unfinished"`);
  }
}
