import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hand-written (the search tables have no entity): GIN indexes without a pending list, which every
 * search would scan while ingestion writes, and one `container <tag>` lexeme per container tag in each
 * tsvector, so the index itself keeps a search inside its tags.
 */
export class MemorySearchIndexes1795338328263 implements MigrationInterface {
  name = 'MemorySearchIndexes1795338328263';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER INDEX "IDX_memory_chunk_search_tsv" SET (fastupdate = off)`);
    await queryRunner.query(`ALTER INDEX "IDX_memory_entry_search_tsv" SET (fastupdate = off)`);
    await queryRunner.query(`SELECT gin_clean_pending_list('"IDX_memory_chunk_search_tsv"'::regclass), gin_clean_pending_list('"IDX_memory_entry_search_tsv"'::regclass)`);
    await queryRunner.query(
      `UPDATE "memory_chunk_search" s SET "tsv" = s."tsv" || array_to_tsvector(ARRAY(SELECT 'container ' || jsonb_array_elements_text(COALESCE(d."container_tags", '[]')::jsonb)))
       FROM "memory_chunk" c JOIN "memory_document" d ON d."id" = c."document_id" WHERE c."id" = s."chunk_id"`,
    );
    await queryRunner.query(`UPDATE "memory_entry_search" s SET "tsv" = s."tsv" || array_to_tsvector(ARRAY['container ' || m."container_tag"]) FROM "memory_entry" m WHERE m."id" = s."memory_id"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE "memory_entry_search" s SET "tsv" = to_tsvector('english', m."memory") FROM "memory_entry" m WHERE m."id" = s."memory_id"`);
    await queryRunner.query(`UPDATE "memory_chunk_search" s SET "tsv" = to_tsvector('english', c."content") FROM "memory_chunk" c WHERE c."id" = s."chunk_id"`);
    await queryRunner.query(`ALTER INDEX "IDX_memory_entry_search_tsv" SET (fastupdate = on)`);
    await queryRunner.query(`ALTER INDEX "IDX_memory_chunk_search_tsv" SET (fastupdate = on)`);
  }
}
