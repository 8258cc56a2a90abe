import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hand-written (sqlite-vec's vec0 table has no entity, and its dimension is the embedding model's): moves
 * the chunk vectors already stored as JSON into a vec0 table, which SqliteVectorIndex searches. A
 * database without vectors gets the table with its first vector.
 */
export class ChunkVectors1795600000000 implements MigrationInterface {
  name = 'ChunkVectors1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const [latest] = (await queryRunner.query(`SELECT json_array_length("embedding") AS "dimensions" FROM "memory_chunk" WHERE "embedding" IS NOT NULL ORDER BY "id" DESC LIMIT 1`)) as { dimensions: number }[];
    if (!latest?.dimensions) return;
    await queryRunner.query(`CREATE VIRTUAL TABLE IF NOT EXISTS "memory_chunk_vec" USING vec0(chunk_id INTEGER PRIMARY KEY, embedding float[${Number(latest.dimensions)}] distance_metric=cosine)`);
    await queryRunner.query(
      `INSERT INTO "memory_chunk_vec" ("chunk_id", "embedding") SELECT "id", vec_f32("embedding") FROM "memory_chunk" WHERE "embedding" IS NOT NULL AND json_array_length("embedding") = ?`,
      [latest.dimensions],
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS "memory_chunk_vec"`);
  }
}
