import { MigrationInterface, QueryRunner } from 'typeorm';

export class EventRelay1795322530637 implements MigrationInterface {
  name = 'EventRelay1795322530637';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "relayed_event" ("id" SERIAL NOT NULL, "envelope" text NOT NULL, "created_at" bigint NOT NULL, CONSTRAINT "PK_da9ef5f48e3c4a03987f0c59b9d" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "idx_relayed_event_created" ON "relayed_event"  ("created_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_relayed_event_created"`);
    await queryRunner.query(`DROP TABLE "relayed_event"`);
  }
}
