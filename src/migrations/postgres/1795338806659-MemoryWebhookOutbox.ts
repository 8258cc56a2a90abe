import { MigrationInterface, QueryRunner } from 'typeorm';

export class MemoryWebhookOutbox1795338806659 implements MigrationInterface {
  name = 'MemoryWebhookOutbox1795338806659';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "memory_webhook_delivery" ("id" character varying(36) NOT NULL, "url" text NOT NULL, "body" text NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "due_at" bigint NOT NULL, "last_error" text, "created_at" bigint NOT NULL, CONSTRAINT "PK_faae77f355e338acb5d33302129" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_webhook_delivery_due" ON "memory_webhook_delivery"  ("url", "due_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_memory_webhook_delivery_due"`);
    await queryRunner.query(`DROP TABLE "memory_webhook_delivery"`);
  }
}
