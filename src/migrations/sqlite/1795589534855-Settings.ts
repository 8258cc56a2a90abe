import { MigrationInterface, QueryRunner } from 'typeorm';

export class Settings1795589534855 implements MigrationInterface {
  name = 'Settings1795589534855';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "organization_settings" ("org_id" varchar(64) PRIMARY KEY NOT NULL, "chunk_size" integer, "should_llm_filter" boolean, "filter_prompt" text, "include_items" text, "exclude_items" text, "github_client_id" text, "github_client_secret" text, "github_custom_key_enabled" boolean, "google_drive_client_id" text, "google_drive_client_secret" text, "google_drive_custom_key_enabled" boolean, "notion_client_id" text, "notion_client_secret" text, "notion_custom_key_enabled" boolean, "onedrive_client_id" text, "onedrive_client_secret" text, "onedrive_custom_key_enabled" boolean, "updated_at" bigint NOT NULL)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "organization_settings"`);
  }
}
