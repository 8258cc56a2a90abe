import { MigrationInterface, QueryRunner } from 'typeorm';

export class DocumentExtractAttempts1795644973924 implements MigrationInterface {
  name = 'DocumentExtractAttempts1795644973924';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_memory_document_created"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_updated"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_claimed_by"`);
    await queryRunner.query(`DROP INDEX "UQ_memory_document_custom_id"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_tag"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_lease"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_unfinished"`);
    await queryRunner.query(`CREATE TABLE "temporary_memory_document" ("id" varchar(22) PRIMARY KEY NOT NULL, "custom_id" varchar(255), "content" text, "text_content" text, "raw" text, "url" text, "title" text, "summary" text, "type" varchar(32) NOT NULL DEFAULT ('text'), "source" varchar(16) NOT NULL DEFAULT ('text'), "task_type" varchar(16) NOT NULL DEFAULT ('memory'), "dreaming" varchar(16) NOT NULL DEFAULT ('dynamic'), "status" varchar(16) NOT NULL DEFAULT ('queued'), "dreaming_status" varchar(16) NOT NULL DEFAULT ('dreaming'), "error" text, "metadata" text, "container_tag" varchar(100), "container_tags" text, "entity_context" text, "filter_by_metadata" text, "filepath" text, "document_date" varchar(64), "revision" integer NOT NULL DEFAULT (0), "dreamed_length" integer NOT NULL DEFAULT (0), "lease_until" bigint, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL, "claimed_by" varchar(36), "extract_attempts" integer NOT NULL DEFAULT (0))`);
    await queryRunner.query(`INSERT INTO "temporary_memory_document"("id", "custom_id", "content", "text_content", "raw", "url", "title", "summary", "type", "source", "task_type", "dreaming", "status", "dreaming_status", "error", "metadata", "container_tag", "container_tags", "entity_context", "filter_by_metadata", "filepath", "document_date", "revision", "dreamed_length", "lease_until", "created_at", "updated_at", "claimed_by") SELECT "id", "custom_id", "content", "text_content", "raw", "url", "title", "summary", "type", "source", "task_type", "dreaming", "status", "dreaming_status", "error", "metadata", "container_tag", "container_tags", "entity_context", "filter_by_metadata", "filepath", "document_date", "revision", "dreamed_length", "lease_until", "created_at", "updated_at", "claimed_by" FROM "memory_document"`);
    await queryRunner.query(`DROP TABLE "memory_document"`);
    await queryRunner.query(`ALTER TABLE "temporary_memory_document" RENAME TO "memory_document"`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_created" ON "memory_document" ("created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_updated" ON "memory_document" ("updated_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_claimed_by" ON "memory_document" ("claimed_by") WHERE claimed_by IS NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_memory_document_custom_id" ON "memory_document" ("custom_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_tag" ON "memory_document" ("container_tag", "created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_lease" ON "memory_document" ("lease_until") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_unfinished" ON "memory_document" ("created_at") WHERE status NOT IN ('done', 'failed')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_memory_document_unfinished"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_lease"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_tag"`);
    await queryRunner.query(`DROP INDEX "UQ_memory_document_custom_id"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_claimed_by"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_updated"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_created"`);
    await queryRunner.query(`ALTER TABLE "memory_document" RENAME TO "temporary_memory_document"`);
    await queryRunner.query(`CREATE TABLE "memory_document" ("id" varchar(22) PRIMARY KEY NOT NULL, "custom_id" varchar(255), "content" text, "text_content" text, "raw" text, "url" text, "title" text, "summary" text, "type" varchar(32) NOT NULL DEFAULT ('text'), "source" varchar(16) NOT NULL DEFAULT ('text'), "task_type" varchar(16) NOT NULL DEFAULT ('memory'), "dreaming" varchar(16) NOT NULL DEFAULT ('dynamic'), "status" varchar(16) NOT NULL DEFAULT ('queued'), "dreaming_status" varchar(16) NOT NULL DEFAULT ('dreaming'), "error" text, "metadata" text, "container_tag" varchar(100), "container_tags" text, "entity_context" text, "filter_by_metadata" text, "filepath" text, "document_date" varchar(64), "revision" integer NOT NULL DEFAULT (0), "dreamed_length" integer NOT NULL DEFAULT (0), "lease_until" bigint, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL, "claimed_by" varchar(36))`);
    await queryRunner.query(`INSERT INTO "memory_document"("id", "custom_id", "content", "text_content", "raw", "url", "title", "summary", "type", "source", "task_type", "dreaming", "status", "dreaming_status", "error", "metadata", "container_tag", "container_tags", "entity_context", "filter_by_metadata", "filepath", "document_date", "revision", "dreamed_length", "lease_until", "created_at", "updated_at", "claimed_by") SELECT "id", "custom_id", "content", "text_content", "raw", "url", "title", "summary", "type", "source", "task_type", "dreaming", "status", "dreaming_status", "error", "metadata", "container_tag", "container_tags", "entity_context", "filter_by_metadata", "filepath", "document_date", "revision", "dreamed_length", "lease_until", "created_at", "updated_at", "claimed_by" FROM "temporary_memory_document"`);
    await queryRunner.query(`DROP TABLE "temporary_memory_document"`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_unfinished" ON "memory_document" ("created_at") WHERE status NOT IN ('done', 'failed')`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_lease" ON "memory_document" ("lease_until") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_tag" ON "memory_document" ("container_tag", "created_at") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_memory_document_custom_id" ON "memory_document" ("custom_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_claimed_by" ON "memory_document" ("claimed_by") WHERE claimed_by IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_updated" ON "memory_document" ("updated_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_created" ON "memory_document" ("created_at") `);
  }
}
