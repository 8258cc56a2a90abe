import { MigrationInterface, QueryRunner } from 'typeorm';

export class TraefikConfigHistory1795659091759 implements MigrationInterface {
  name = 'TraefikConfigHistory1795659091759';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "traefik_config_history" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "created_at" datetime NOT NULL, "trigger" text NOT NULL, "document" text NOT NULL, "diff" text NOT NULL, "added" integer NOT NULL, "removed" integer NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "IDX_traefik_config_history_created_at" ON "traefik_config_history" ("created_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_traefik_config_history_created_at"`);
    await queryRunner.query(`DROP TABLE "traefik_config_history"`);
  }
}
