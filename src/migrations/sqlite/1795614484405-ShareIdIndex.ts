import { MigrationInterface, QueryRunner } from 'typeorm';

export class ShareIdIndex1795614484405 implements MigrationInterface {
  name = 'ShareIdIndex1795614484405';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Share ids of earlier versions were the session id's last 8 characters (guessable): no longer served.
    await queryRunner.query(`DELETE FROM "session_share" WHERE length("share_id") < 22`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_session_share_share_id" ON "session_share" ("share_id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "UQ_session_share_share_id"`);
  }
}
