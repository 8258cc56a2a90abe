import { DynamicModule, Global, Module } from '@nestjs/common';
import { AllowedDirectories } from './allowed-directories';
import { Authenticator } from './auth.middleware';
import { OriginPolicy } from './request-origin';
import { KEEL_SETTINGS, KeelSettings } from './settings';

@Global()
@Module({})
export class SettingsModule {
  static forRoot(settings: KeelSettings): DynamicModule {
    return {
      module: this, // not the class name: a self-reference would rename the class in the bundle (SettingsModule_1)
      providers: [
        { provide: KEEL_SETTINGS, useValue: settings },
        { provide: AllowedDirectories, useValue: new AllowedDirectories(settings.allowedDirectories) },
        { provide: OriginPolicy, useValue: new OriginPolicy(settings) },
        { provide: Authenticator, useValue: new Authenticator(settings) },
      ],
      exports: [KEEL_SETTINGS, AllowedDirectories, OriginPolicy, Authenticator],
    };
  }
}
