import { MigrationInterface, QueryRunner } from 'typeorm';

export class MemoryDocumentListOrder1795615718747 implements MigrationInterface {
  name = 'MemoryDocumentListOrder1795615718747';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_updated" ON "memory_document" ("updated_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_created" ON "memory_document" ("created_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_memory_document_created"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_updated"`);
  }
}
