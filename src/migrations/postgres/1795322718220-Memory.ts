import { MigrationInterface, QueryRunner } from 'typeorm';

export class Memory1795322718220 implements MigrationInterface {
  name = 'Memory1795322718220';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "memory_chunk" ("id" SERIAL NOT NULL, "document_id" character varying(22) NOT NULL, "position" integer NOT NULL, "content" text NOT NULL, "start_offset" integer NOT NULL, "end_offset" integer NOT NULL, "embedding" text, "created_at" bigint NOT NULL, CONSTRAINT "PK_e0a59a74e22caf34a6fc06522fa" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_chunk_document" ON "memory_chunk"  ("document_id", "position") `);
    await queryRunner.query(`CREATE TABLE "memory_document" ("id" character varying(22) NOT NULL, "custom_id" character varying(255), "content" text, "text_content" text, "raw" text, "url" text, "title" text, "summary" text, "type" character varying(32) NOT NULL DEFAULT 'text', "source" character varying(16) NOT NULL DEFAULT 'text', "task_type" character varying(16) NOT NULL DEFAULT 'memory', "dreaming" character varying(16) NOT NULL DEFAULT 'dynamic', "status" character varying(16) NOT NULL DEFAULT 'queued', "dreaming_status" character varying(16) NOT NULL DEFAULT 'dreaming', "error" text, "metadata" text, "container_tag" character varying(100), "container_tags" text, "entity_context" text, "filter_by_metadata" text, "filepath" text, "document_date" character varying(64), "revision" integer NOT NULL DEFAULT '0', "dreamed_length" integer NOT NULL DEFAULT '0', "lease_until" bigint, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL, CONSTRAINT "PK_8df948e6fc11a9d6731c1a8f648" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_memory_document_custom_id" ON "memory_document"  ("custom_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_tag" ON "memory_document"  ("container_tag", "created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_lease" ON "memory_document"  ("lease_until") `);
    await queryRunner.query(`CREATE TABLE "memory_document_file" ("document_id" character varying(22) NOT NULL, "file_name" text, "mime_type" character varying(255), "file_type" character varying(32), "data" text NOT NULL, CONSTRAINT "PK_3410669e03edb6690bf805d5428" PRIMARY KEY ("document_id"))`);
    await queryRunner.query(`CREATE TABLE "memory_entry" ("id" character varying(22) NOT NULL, "memory" text NOT NULL, "container_tag" character varying(100) NOT NULL, "fact_key" character varying(200) NOT NULL, "document_id" character varying(22), "version" integer NOT NULL DEFAULT '1', "is_latest" boolean NOT NULL DEFAULT true, "is_forgotten" boolean NOT NULL DEFAULT false, "is_static" boolean NOT NULL DEFAULT false, "is_inference" boolean NOT NULL DEFAULT false, "parent_memory_id" character varying(22), "root_memory_id" character varying(22), "relation" character varying(16), "source_count" integer NOT NULL DEFAULT '1', "metadata" text, "forget_after" bigint, "forget_reason" text, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL, CONSTRAINT "PK_1cfc7d697bc8a5000e6c8a1e224" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_document" ON "memory_entry"  ("document_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_root" ON "memory_entry"  ("root_memory_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_tag_key" ON "memory_entry"  ("container_tag", "fact_key", "is_latest") `);
    // Hand-written: tsvector tables with GIN indexes beside the entity tables (TypeORM ignores
    // tables it has no entity for, so schema checks stay clean); rows follow their chunk/memory by cascade.
    await queryRunner.query(`CREATE TABLE "memory_chunk_search" ("chunk_id" integer PRIMARY KEY REFERENCES "memory_chunk" ("id") ON DELETE CASCADE, "tsv" tsvector NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_chunk_search_tsv" ON "memory_chunk_search" USING GIN ("tsv")`);
    await queryRunner.query(`CREATE TABLE "memory_entry_search" ("memory_id" varchar(22) PRIMARY KEY REFERENCES "memory_entry" ("id") ON DELETE CASCADE, "tsv" tsvector NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_search_tsv" ON "memory_entry_search" USING GIN ("tsv")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "memory_entry_search"`);
    await queryRunner.query(`DROP TABLE "memory_chunk_search"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_entry_tag_key"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_entry_root"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_entry_document"`);
    await queryRunner.query(`DROP TABLE "memory_entry"`);
    await queryRunner.query(`DROP TABLE "memory_document_file"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_document_lease"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_document_tag"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_memory_document_custom_id"`);
    await queryRunner.query(`DROP TABLE "memory_document"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_chunk_document"`);
    await queryRunner.query(`DROP TABLE "memory_chunk"`);
  }
}
