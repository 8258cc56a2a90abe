import { MigrationInterface, QueryRunner } from 'typeorm';

export class Organizations1795659093754 implements MigrationInterface {
  name = 'Organizations1795659093754';

  // memory_entry is copied with its rowids: memory_entry_fts (FTS5) is keyed by them.
  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_memory_document_unfinished"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_tag"`);
    await queryRunner.query(`DROP INDEX "UQ_memory_document_custom_id"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_updated"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_created"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_entry_tag_key"`);
    await queryRunner.query(`CREATE TABLE "memory_organization" ("id" varchar(64) PRIMARY KEY NOT NULL, "name" varchar(100) NOT NULL, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL)`);
    // The default organization: every row written before organizations belongs to it (org_id's default).
    await queryRunner.query(`INSERT INTO "memory_organization" ("id", "name", "created_at", "updated_at") VALUES ('local', 'Default', ${Date.now()}, ${Date.now()})`);
    await queryRunner.query(`CREATE TABLE "memory_api_key" ("id" varchar(32) PRIMARY KEY NOT NULL, "org_id" varchar(64) NOT NULL, "name" varchar(100) NOT NULL, "prefix" varchar(16) NOT NULL, "digest" varchar(64) NOT NULL, "created_at" bigint NOT NULL, "last_used_at" bigint)`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_memory_api_key_digest" ON "memory_api_key" ("digest") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_api_key_org" ON "memory_api_key" ("org_id", "created_at") `);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_lease"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_claimed_by"`);
    await queryRunner.query(`CREATE TABLE "temporary_memory_document" ("id" varchar(22) PRIMARY KEY NOT NULL, "custom_id" varchar(255), "content" text, "text_content" text, "raw" text, "url" text, "title" text, "summary" text, "type" varchar(32) NOT NULL DEFAULT ('text'), "source" varchar(16) NOT NULL DEFAULT ('text'), "task_type" varchar(16) NOT NULL DEFAULT ('memory'), "dreaming" varchar(16) NOT NULL DEFAULT ('dynamic'), "status" varchar(16) NOT NULL DEFAULT ('queued'), "dreaming_status" varchar(16) NOT NULL DEFAULT ('dreaming'), "error" text, "metadata" text, "container_tag" varchar(100), "container_tags" text, "entity_context" text, "filter_by_metadata" text, "filepath" text, "document_date" varchar(64), "revision" integer NOT NULL DEFAULT (0), "dreamed_length" integer NOT NULL DEFAULT (0), "lease_until" bigint, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL, "claimed_by" varchar(36), "extract_attempts" integer NOT NULL DEFAULT (0), "org_id" varchar(64) NOT NULL DEFAULT ('local'))`);
    await queryRunner.query(`INSERT INTO "temporary_memory_document"("id", "custom_id", "content", "text_content", "raw", "url", "title", "summary", "type", "source", "task_type", "dreaming", "status", "dreaming_status", "error", "metadata", "container_tag", "container_tags", "entity_context", "filter_by_metadata", "filepath", "document_date", "revision", "dreamed_length", "lease_until", "created_at", "updated_at", "claimed_by", "extract_attempts") SELECT "id", "custom_id", "content", "text_content", "raw", "url", "title", "summary", "type", "source", "task_type", "dreaming", "status", "dreaming_status", "error", "metadata", "container_tag", "container_tags", "entity_context", "filter_by_metadata", "filepath", "document_date", "revision", "dreamed_length", "lease_until", "created_at", "updated_at", "claimed_by", "extract_attempts" FROM "memory_document"`);
    await queryRunner.query(`DROP TABLE "memory_document"`);
    await queryRunner.query(`ALTER TABLE "temporary_memory_document" RENAME TO "memory_document"`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_lease" ON "memory_document" ("lease_until") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_claimed_by" ON "memory_document" ("claimed_by") WHERE claimed_by IS NOT NULL`);
    await queryRunner.query(`DROP INDEX "IDX_memory_entry_root"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_entry_document"`);
    await queryRunner.query(`CREATE TABLE "temporary_memory_entry" ("id" varchar(22) PRIMARY KEY NOT NULL, "memory" text NOT NULL, "container_tag" varchar(100) NOT NULL, "fact_key" varchar(200) NOT NULL, "document_id" varchar(22), "version" integer NOT NULL DEFAULT (1), "is_latest" boolean NOT NULL DEFAULT (1), "is_forgotten" boolean NOT NULL DEFAULT (0), "is_static" boolean NOT NULL DEFAULT (0), "is_inference" boolean NOT NULL DEFAULT (0), "parent_memory_id" varchar(22), "root_memory_id" varchar(22), "relation" varchar(16), "source_count" integer NOT NULL DEFAULT (1), "metadata" text, "forget_after" bigint, "forget_reason" text, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL, "org_id" varchar(64) NOT NULL DEFAULT ('local'))`);
    await queryRunner.query(`INSERT INTO "temporary_memory_entry"("rowid", "id", "memory", "container_tag", "fact_key", "document_id", "version", "is_latest", "is_forgotten", "is_static", "is_inference", "parent_memory_id", "root_memory_id", "relation", "source_count", "metadata", "forget_after", "forget_reason", "created_at", "updated_at") SELECT "rowid", "id", "memory", "container_tag", "fact_key", "document_id", "version", "is_latest", "is_forgotten", "is_static", "is_inference", "parent_memory_id", "root_memory_id", "relation", "source_count", "metadata", "forget_after", "forget_reason", "created_at", "updated_at" FROM "memory_entry"`);
    await queryRunner.query(`DROP TABLE "memory_entry"`);
    await queryRunner.query(`ALTER TABLE "temporary_memory_entry" RENAME TO "memory_entry"`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_root" ON "memory_entry" ("root_memory_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_document" ON "memory_entry" ("document_id") `);
    await queryRunner.query(`DROP INDEX "IDX_memory_webhook_delivery_due"`);
    await queryRunner.query(`CREATE TABLE "temporary_memory_webhook_delivery" ("id" varchar(36) PRIMARY KEY NOT NULL, "url" text NOT NULL, "body" text NOT NULL, "attempts" integer NOT NULL DEFAULT (0), "due_at" bigint NOT NULL, "last_error" text, "created_at" bigint NOT NULL, "org_id" varchar(64) NOT NULL DEFAULT ('local'))`);
    await queryRunner.query(`INSERT INTO "temporary_memory_webhook_delivery"("id", "url", "body", "attempts", "due_at", "last_error", "created_at") SELECT "id", "url", "body", "attempts", "due_at", "last_error", "created_at" FROM "memory_webhook_delivery"`);
    await queryRunner.query(`DROP TABLE "memory_webhook_delivery"`);
    await queryRunner.query(`ALTER TABLE "temporary_memory_webhook_delivery" RENAME TO "memory_webhook_delivery"`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_webhook_delivery_due" ON "memory_webhook_delivery" ("url", "due_at") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_memory_document_custom_id" ON "memory_document" ("org_id", "custom_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_unfinished" ON "memory_document" ("org_id", "created_at") WHERE status NOT IN ('done', 'failed')`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_updated" ON "memory_document" ("org_id", "updated_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_created" ON "memory_document" ("org_id", "created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_tag" ON "memory_document" ("org_id", "container_tag", "created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_tag_key" ON "memory_entry" ("org_id", "container_tag", "fact_key", "is_latest") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_webhook_delivery_org" ON "memory_webhook_delivery" ("org_id", "created_at") `);
    // The full-text rows carry their organization's token (search/full-text-index.ts): rebuilt with it.
    await queryRunner.query(`INSERT INTO memory_chunk_fts (memory_chunk_fts) VALUES ('delete-all')`);
    await queryRunner.query(`INSERT INTO memory_chunk_fts (rowid, content) SELECT c.id, c.content || ' keelorg' || lower(hex(d.org_id)) FROM memory_chunk c JOIN memory_document d ON d.id = c.document_id`);
    await queryRunner.query(`INSERT INTO memory_entry_fts (memory_entry_fts) VALUES ('delete-all')`);
    await queryRunner.query(`INSERT INTO memory_entry_fts (rowid, content) SELECT rowid, memory || ' keelorg' || lower(hex(org_id)) FROM memory_entry WHERE is_latest = 1 AND is_forgotten = 0`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`INSERT INTO memory_chunk_fts (memory_chunk_fts) VALUES ('delete-all')`);
    await queryRunner.query(`INSERT INTO memory_chunk_fts (rowid, content) SELECT id, content FROM memory_chunk`);
    await queryRunner.query(`INSERT INTO memory_entry_fts (memory_entry_fts) VALUES ('delete-all')`);
    await queryRunner.query(`INSERT INTO memory_entry_fts (rowid, content) SELECT rowid, memory FROM memory_entry WHERE is_latest = 1 AND is_forgotten = 0`);
    await queryRunner.query(`DROP INDEX "IDX_memory_webhook_delivery_org"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_entry_tag_key"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_tag"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_created"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_updated"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_unfinished"`);
    await queryRunner.query(`DROP INDEX "UQ_memory_document_custom_id"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_webhook_delivery_due"`);
    await queryRunner.query(`ALTER TABLE "memory_webhook_delivery" RENAME TO "temporary_memory_webhook_delivery"`);
    await queryRunner.query(`CREATE TABLE "memory_webhook_delivery" ("id" varchar(36) PRIMARY KEY NOT NULL, "url" text NOT NULL, "body" text NOT NULL, "attempts" integer NOT NULL DEFAULT (0), "due_at" bigint NOT NULL, "last_error" text, "created_at" bigint NOT NULL)`);
    await queryRunner.query(`INSERT INTO "memory_webhook_delivery"("id", "url", "body", "attempts", "due_at", "last_error", "created_at") SELECT "id", "url", "body", "attempts", "due_at", "last_error", "created_at" FROM "temporary_memory_webhook_delivery"`);
    await queryRunner.query(`DROP TABLE "temporary_memory_webhook_delivery"`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_webhook_delivery_due" ON "memory_webhook_delivery" ("url", "due_at") `);
    await queryRunner.query(`DROP INDEX "IDX_memory_entry_document"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_entry_root"`);
    await queryRunner.query(`ALTER TABLE "memory_entry" RENAME TO "temporary_memory_entry"`);
    await queryRunner.query(`CREATE TABLE "memory_entry" ("id" varchar(22) PRIMARY KEY NOT NULL, "memory" text NOT NULL, "container_tag" varchar(100) NOT NULL, "fact_key" varchar(200) NOT NULL, "document_id" varchar(22), "version" integer NOT NULL DEFAULT (1), "is_latest" boolean NOT NULL DEFAULT (1), "is_forgotten" boolean NOT NULL DEFAULT (0), "is_static" boolean NOT NULL DEFAULT (0), "is_inference" boolean NOT NULL DEFAULT (0), "parent_memory_id" varchar(22), "root_memory_id" varchar(22), "relation" varchar(16), "source_count" integer NOT NULL DEFAULT (1), "metadata" text, "forget_after" bigint, "forget_reason" text, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL)`);
    await queryRunner.query(`INSERT INTO "memory_entry"("rowid", "id", "memory", "container_tag", "fact_key", "document_id", "version", "is_latest", "is_forgotten", "is_static", "is_inference", "parent_memory_id", "root_memory_id", "relation", "source_count", "metadata", "forget_after", "forget_reason", "created_at", "updated_at") SELECT "rowid", "id", "memory", "container_tag", "fact_key", "document_id", "version", "is_latest", "is_forgotten", "is_static", "is_inference", "parent_memory_id", "root_memory_id", "relation", "source_count", "metadata", "forget_after", "forget_reason", "created_at", "updated_at" FROM "temporary_memory_entry"`);
    await queryRunner.query(`DROP TABLE "temporary_memory_entry"`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_document" ON "memory_entry" ("document_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_root" ON "memory_entry" ("root_memory_id") `);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_claimed_by"`);
    await queryRunner.query(`DROP INDEX "IDX_memory_document_lease"`);
    await queryRunner.query(`ALTER TABLE "memory_document" RENAME TO "temporary_memory_document"`);
    await queryRunner.query(`CREATE TABLE "memory_document" ("id" varchar(22) PRIMARY KEY NOT NULL, "custom_id" varchar(255), "content" text, "text_content" text, "raw" text, "url" text, "title" text, "summary" text, "type" varchar(32) NOT NULL DEFAULT ('text'), "source" varchar(16) NOT NULL DEFAULT ('text'), "task_type" varchar(16) NOT NULL DEFAULT ('memory'), "dreaming" varchar(16) NOT NULL DEFAULT ('dynamic'), "status" varchar(16) NOT NULL DEFAULT ('queued'), "dreaming_status" varchar(16) NOT NULL DEFAULT ('dreaming'), "error" text, "metadata" text, "container_tag" varchar(100), "container_tags" text, "entity_context" text, "filter_by_metadata" text, "filepath" text, "document_date" varchar(64), "revision" integer NOT NULL DEFAULT (0), "dreamed_length" integer NOT NULL DEFAULT (0), "lease_until" bigint, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL, "claimed_by" varchar(36), "extract_attempts" integer NOT NULL DEFAULT (0))`);
    await queryRunner.query(`INSERT INTO "memory_document"("id", "custom_id", "content", "text_content", "raw", "url", "title", "summary", "type", "source", "task_type", "dreaming", "status", "dreaming_status", "error", "metadata", "container_tag", "container_tags", "entity_context", "filter_by_metadata", "filepath", "document_date", "revision", "dreamed_length", "lease_until", "created_at", "updated_at", "claimed_by", "extract_attempts") SELECT "id", "custom_id", "content", "text_content", "raw", "url", "title", "summary", "type", "source", "task_type", "dreaming", "status", "dreaming_status", "error", "metadata", "container_tag", "container_tags", "entity_context", "filter_by_metadata", "filepath", "document_date", "revision", "dreamed_length", "lease_until", "created_at", "updated_at", "claimed_by", "extract_attempts" FROM "temporary_memory_document"`);
    await queryRunner.query(`DROP TABLE "temporary_memory_document"`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_claimed_by" ON "memory_document" ("claimed_by") WHERE claimed_by IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_lease" ON "memory_document" ("lease_until") `);
    await queryRunner.query(`DROP INDEX "IDX_memory_api_key_org"`);
    await queryRunner.query(`DROP INDEX "UQ_memory_api_key_digest"`);
    await queryRunner.query(`DROP TABLE "memory_api_key"`);
    await queryRunner.query(`DROP TABLE "memory_organization"`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_tag_key" ON "memory_entry" ("container_tag", "fact_key", "is_latest") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_created" ON "memory_document" ("created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_updated" ON "memory_document" ("updated_at") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_memory_document_custom_id" ON "memory_document" ("custom_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_tag" ON "memory_document" ("container_tag", "created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_unfinished" ON "memory_document" ("created_at") WHERE status NOT IN ('done', 'failed')`);
  }
}
