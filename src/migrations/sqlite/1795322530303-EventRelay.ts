import { MigrationInterface, QueryRunner } from 'typeorm';

export class EventRelay1795322530303 implements MigrationInterface {
  name = 'EventRelay1795322530303';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "relayed_event" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "envelope" text NOT NULL, "created_at" bigint NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "idx_relayed_event_created" ON "relayed_event" ("created_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_relayed_event_created"`);
    await queryRunner.query(`DROP TABLE "relayed_event"`);
  }
}
