import { MigrationInterface, QueryRunner } from 'typeorm';

export class Memory1795322717987 implements MigrationInterface {
  name = 'Memory1795322717987';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "memory_chunk" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "document_id" varchar(22) NOT NULL, "position" integer NOT NULL, "content" text NOT NULL, "start_offset" integer NOT NULL, "end_offset" integer NOT NULL, "embedding" text, "created_at" bigint NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_chunk_document" ON "memory_chunk" ("document_id", "position") `);
    await queryRunner.query(`CREATE TABLE "memory_document" ("id" varchar(22) PRIMARY KEY NOT NULL, "custom_id" varchar(255), "content" text, "text_content" text, "raw" text, "url" text, "title" text, "summary" text, "type" varchar(32) NOT NULL DEFAULT ('text'), "source" varchar(16) NOT NULL DEFAULT ('text'), "task_type" varchar(16) NOT NULL DEFAULT ('memory'), "dreaming" varchar(16) NOT NULL DEFAULT ('dynamic'), "status" varchar(16) NOT NULL DEFAULT ('queued'), "dreaming_status" varchar(16) NOT NULL DEFAULT ('dreaming'), "error" text, "metadata" text, "container_tag" varchar(100), "container_tags" text, "entity_context" text, "filter_by_metadata" text, "filepath" text, "document_date" varchar(64), "revision" integer NOT NULL DEFAULT (0), "dreamed_length" integer NOT NULL DEFAULT (0), "lease_until" bigint, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL)`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_memory_document_custom_id" ON "memory_document" ("custom_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_tag" ON "memory_document" ("container_tag", "created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_lease" ON "memory_document" ("lease_until") `);
    await queryRunner.query(`CREATE TABLE "memory_document_file" ("document_id" varchar(22) PRIMARY KEY NOT NULL, "file_name" text, "mime_type" varchar(255), "file_type" varchar(32), "data" text NOT NULL)`);
    await queryRunner.query(`CREATE TABLE "memory_entry" ("id" varchar(22) PRIMARY KEY NOT NULL, "memory" text NOT NULL, "container_tag" varchar(100) NOT NULL, "fact_key" varchar(200) NOT NULL, "document_id" varchar(22), "version" integer NOT NULL DEFAULT (1), "is_latest" boolean NOT NULL DEFAULT (1), "is_forgotten" boolean NOT NULL DEFAULT (0), "is_static" boolean NOT NULL DEFAULT (0), "is_inference" boolean NOT NULL DEFAULT (0), "parent_memory_id" varchar(22), "root_memory_id" varchar(22), "relation" varchar(16), "source_count" integer NOT NULL DEFAULT (1), "metadata" text, "forget_after" bigint, "forget_reason" text, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_document" ON "memory_entry" ("document_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_root" ON "memory_entry" ("root_memory_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_tag_key" ON "memory_entry" ("container_tag", "fact_key", "is_latest") `);
    // Hand-written: full-text indexes TypeORM does not model. Contentless FTS5 tables keyed by the
    // chunk id / memory_entry rowid; contentless_delete lets a document's rows be removed by id.
    await queryRunner.query(`CREATE VIRTUAL TABLE "memory_chunk_fts" USING fts5(content, content='', contentless_delete=1, tokenize='porter unicode61')`);
    await queryRunner.query(`CREATE VIRTUAL TABLE "memory_entry_fts" USING fts5(content, content='', contentless_delete=1, tokenize='porter unicode61')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "memory_entry_fts"`);
    await queryRunner.query(`DROP TABLE "memory_chunk_fts"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_entry_tag_key"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_entry_root"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_entry_document"`);
    await queryRunner.query(`DROP TABLE "memory_entry"`);
    await queryRunner.query(`DROP TABLE "memory_document_file"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_lease"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_tag"`);
    await queryRunner.query(`DROP INDEX "UQ_memory_document_custom_id"`);
    await queryRunner.query(`DROP TABLE "memory_document"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_chunk_document"`);
    await queryRunner.query(`DROP TABLE "memory_chunk"`);
  }
}
