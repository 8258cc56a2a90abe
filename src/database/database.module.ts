import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { KEEL_SETTINGS, KeelSettings } from '../common/settings';
import { buildDataSourceOptions, loadedEntities, openDataSource } from './data-source-options';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [KEEL_SETTINGS],
      useFactory: (settings: KeelSettings) => buildDataSourceOptions(settings, loadedEntities()),
      dataSourceFactory: (options) => openDataSource(options!),
    }),
  ],
})
export class DatabaseModule {}
