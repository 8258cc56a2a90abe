import { MigrationInterface, QueryRunner } from 'typeorm';

export class Organizations1795659094975 implements MigrationInterface {
  name = 'Organizations1795659094975';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."UQ_memory_document_custom_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_document_tag"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_document_unfinished"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_document_updated"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_document_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_entry_tag_key"`);
    await queryRunner.query(`CREATE TABLE "memory_organization" ("id" character varying(64) NOT NULL, "name" character varying(100) NOT NULL, "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL, CONSTRAINT "PK_023799f83e139fadecfd8fa3028" PRIMARY KEY ("id"))`);
    // The default organization: every row written before organizations belongs to it (org_id's default).
    await queryRunner.query(`INSERT INTO "memory_organization" ("id", "name", "created_at", "updated_at") VALUES ('local', 'Default', ${Date.now()}, ${Date.now()})`);
    await queryRunner.query(`CREATE TABLE "memory_api_key" ("id" character varying(32) NOT NULL, "org_id" character varying(64) NOT NULL, "name" character varying(100) NOT NULL, "prefix" character varying(16) NOT NULL, "digest" character varying(64) NOT NULL, "created_at" bigint NOT NULL, "last_used_at" bigint, CONSTRAINT "PK_33eb341edc0a9de55953ba7d26a" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_memory_api_key_digest" ON "memory_api_key"  ("digest") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_api_key_org" ON "memory_api_key"  ("org_id", "created_at") `);
    await queryRunner.query(`ALTER TABLE "memory_document" ADD "org_id" character varying(64) NOT NULL DEFAULT 'local'`);
    await queryRunner.query(`ALTER TABLE "memory_entry" ADD "org_id" character varying(64) NOT NULL DEFAULT 'local'`);
    await queryRunner.query(`ALTER TABLE "memory_webhook_delivery" ADD "org_id" character varying(64) NOT NULL DEFAULT 'local'`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_memory_document_custom_id" ON "memory_document"  ("org_id", "custom_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_unfinished" ON "memory_document"  ("org_id", "created_at") WHERE status NOT IN ('done', 'failed')`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_updated" ON "memory_document"  ("org_id", "updated_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_created" ON "memory_document"  ("org_id", "created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_tag" ON "memory_document"  ("org_id", "container_tag", "created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_tag_key" ON "memory_entry"  ("org_id", "container_tag", "fact_key", "is_latest") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_webhook_delivery_org" ON "memory_webhook_delivery"  ("org_id", "created_at") `);
    // Searches intersect the organization's lexeme in the full-text index (search/full-text-index.ts): every row so far is the default organization's.
    await queryRunner.query(`UPDATE "memory_chunk_search" SET "tsv" = "tsv" || array_to_tsvector(ARRAY['organization local'])`);
    await queryRunner.query(`UPDATE "memory_entry_search" SET "tsv" = "tsv" || array_to_tsvector(ARRAY['organization local'])`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_webhook_delivery_org"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_entry_tag_key"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_document_tag"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_document_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_document_updated"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_document_unfinished"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_memory_document_custom_id"`);
    await queryRunner.query(`ALTER TABLE "memory_webhook_delivery" DROP COLUMN "org_id"`);
    await queryRunner.query(`ALTER TABLE "memory_entry" DROP COLUMN "org_id"`);
    await queryRunner.query(`ALTER TABLE "memory_document" DROP COLUMN "org_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_api_key_org"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_memory_api_key_digest"`);
    await queryRunner.query(`DROP TABLE "memory_api_key"`);
    await queryRunner.query(`DROP TABLE "memory_organization"`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_entry_tag_key" ON "memory_entry" USING btree ("container_tag", "fact_key", "is_latest") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_created" ON "memory_document" USING btree ("created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_updated" ON "memory_document" USING btree ("updated_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_unfinished" ON "memory_document" USING btree ("created_at") WHERE ((status)::text <> ALL ((ARRAY['done'::character varying, 'failed'::character varying])::text[]))`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_document_tag" ON "memory_document" USING btree ("container_tag", "created_at") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_memory_document_custom_id" ON "memory_document" USING btree ("custom_id") `);
  }
}
