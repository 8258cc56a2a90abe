import { DynamicModule, Global, Module } from '@nestjs/common';
import { KEEL_SETTINGS, KeelSettings } from './settings';

@Global()
@Module({})
export class SettingsModule {
  static forRoot(settings: KeelSettings): DynamicModule {
    return {
      module: SettingsModule,
      providers: [{ provide: KEEL_SETTINGS, useValue: settings }],
      exports: [KEEL_SETTINGS],
    };
  }
}
