import { DynamicModule, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { HttpShutdown } from './common/http-shutdown';
import { KeelSettings } from './common/settings';
import { ROUTING_PREFIXES } from './common/surface';
import { SettingsModule } from './common/settings.module';
import { DatabaseModule } from './database/database.module';
import { ObservabilityModule } from './observability/observability.module';
import { EventsModule } from './events/events.module';
import { DirectoryMiddleware } from './projects/directory.middleware';
import { ProjectsModule } from './projects/projects.module';
import { FEATURE_MODULES } from './feature-modules';
import { HTTP_BOUNDARY } from './http-boundary';

/**
 * Routes outside the session surface: they take no `?directory=` and have no Instance. Under
 * `/api/` only the routing manager's prefixes: opencode's own `/api/*` routes are session routes.
 */
const NON_INSTANCE_ROUTES = [
  { path: 'global/{*rest}', method: RequestMethod.ALL },
  { path: 'v3/{*rest}', method: RequestMethod.ALL },
  { path: 'v4/{*rest}', method: RequestMethod.ALL },
  ...ROUTING_PREFIXES.flatMap((prefix) => [
    { path: prefix.slice(1), method: RequestMethod.ALL },
    { path: `${prefix.slice(1)}/{*rest}`, method: RequestMethod.ALL },
  ]),
  { path: 'health', method: RequestMethod.ALL },
  { path: 'metrics', method: RequestMethod.GET },
  { path: 'doc', method: RequestMethod.ALL },
  { path: 'docs/{*rest}', method: RequestMethod.ALL },
  { path: 'share/{*rest}', method: RequestMethod.ALL },
  { path: 'keel/{*rest}', method: RequestMethod.ALL },
];

@Module({})
export class AppModule implements NestModule {
  static forRoot(settings: KeelSettings): DynamicModule {
    return {
      // `this` rather than the class: a self-reference makes TypeScript alias the class, and the bundle then names it AppModule_1.
      module: this,
      imports: [
        SettingsModule.forRoot(settings),
        DiscoveryModule,
        DatabaseModule,
        ObservabilityModule,
        EventsModule,
        ProjectsModule,
        ...FEATURE_MODULES,
      ],
      providers: [
        ...HTTP_BOUNDARY,
        HttpShutdown,
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(DirectoryMiddleware)
      .exclude(...NON_INSTANCE_ROUTES)
      .forRoutes({ path: '{*rest}', method: RequestMethod.ALL });
  }
}
