import { MigrationInterface, QueryRunner } from 'typeorm';

export class TraefikConfigHistory1795659093579 implements MigrationInterface {
  name = 'TraefikConfigHistory1795659093579';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "traefik_config_history" ("id" SERIAL NOT NULL, "created_at" TIMESTAMP NOT NULL, "trigger" text NOT NULL, "document" text NOT NULL, "diff" text NOT NULL, "added" integer NOT NULL, "removed" integer NOT NULL, CONSTRAINT "PK_traefik_config_history" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_traefik_config_history_created_at" ON "traefik_config_history"  ("created_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_traefik_config_history_created_at"`);
    await queryRunner.query(`DROP TABLE "traefik_config_history"`);
  }
}
