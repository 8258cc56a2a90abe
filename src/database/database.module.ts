import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { KEEL_SETTINGS, KeelSettings } from '../common/settings';
import { buildDataSourceOptions, loadedEntities, openDataSource, SchemaNewerError } from './data-source-options';
import { PlannerStatistics } from './planner-statistics';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [KEEL_SETTINGS],
      useFactory: (settings: KeelSettings) => ({
        ...buildDataSourceOptions(settings, loadedEntities()),
        // A connection that fails is tried again (PostgreSQL may be starting); a newer schema will not change.
        toRetry: (error: unknown) => !(error instanceof SchemaNewerError),
      }),
      dataSourceFactory: (options) => openDataSource(options!),
    }),
  ],
  providers: [PlannerStatistics],
})
export class DatabaseModule {}
