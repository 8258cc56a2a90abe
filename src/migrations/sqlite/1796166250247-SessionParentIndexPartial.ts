import { MigrationInterface, QueryRunner } from 'typeorm';

/** Only child sessions in the parent index: a create without a parent writes one b-tree fewer. */
export class SessionParentIndexPartial1796166250247 implements MigrationInterface {
  name = 'SessionParentIndexPartial1796166250247';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_session_parent"`);
    await queryRunner.query(`CREATE INDEX "IDX_session_parent" ON "session" ("parent_id") WHERE parent_id IS NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_session_parent"`);
    await queryRunner.query(`CREATE INDEX "IDX_session_parent" ON "session" ("parent_id") `);
  }
}
