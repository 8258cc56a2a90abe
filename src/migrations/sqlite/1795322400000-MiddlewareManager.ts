import { MigrationInterface, QueryRunner } from 'typeorm';
import { adoptOrCreateSchema, dropSchema } from '../../routing/middleware-manager.migration';

/** Routing-manager tables and default rows; adopts an existing middleware-manager v3 database. */
export class MiddlewareManager1795322400000 implements MigrationInterface {
  name = 'MiddlewareManager1795322400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await adoptOrCreateSchema(queryRunner, 'sqlite');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await dropSchema(queryRunner);
  }
}
