import { MigrationInterface, QueryRunner } from 'typeorm';

export class MemoryWebhookOutbox1795338802928 implements MigrationInterface {
  name = 'MemoryWebhookOutbox1795338802928';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "memory_webhook_delivery" ("id" varchar(36) PRIMARY KEY NOT NULL, "url" text NOT NULL, "body" text NOT NULL, "attempts" integer NOT NULL DEFAULT (0), "due_at" bigint NOT NULL, "last_error" text, "created_at" bigint NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "IDX_memory_webhook_delivery_due" ON "memory_webhook_delivery" ("url", "due_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_memory_webhook_delivery_due"`);
    await queryRunner.query(`DROP TABLE "memory_webhook_delivery"`);
  }
}
