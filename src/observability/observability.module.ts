import { Global, Module, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { pgPool } from '../database/direct-query';
import { Metrics } from './metrics.service';
import { OperationsController } from './operations.controller';

/** `/metrics` and readiness; `Metrics` is global so every module can observe what it owns. */
@Global()
@Module({
  controllers: [OperationsController],
  providers: [Metrics],
  exports: [Metrics],
})
export class ObservabilityModule implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    const pool = () => pgPool(this.dataSource);
    this.metrics.sample(
      'keel_db_pool_connections',
      'Database connections open in the pool (PostgreSQL; 1 on SQLite)',
      () => pool()?.totalCount ?? 1,
    );
    this.metrics.sample(
      'keel_db_pool_idle',
      'Idle database connections in the pool',
      () => pool()?.idleCount ?? 0,
    );
    this.metrics.sample(
      'keel_db_pool_waiting',
      'Queries waiting for a database connection',
      () => pool()?.waitingCount ?? 0,
    );
  }
}
