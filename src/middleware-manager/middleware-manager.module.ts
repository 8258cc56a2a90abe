import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { KEEL_SETTINGS, KeelSettings } from '../common/settings';
import { DataSourceStore } from './data-source.store';
import { DataSourcesController } from './data-sources.controller';
import { DataSourcesService } from './data-sources.service';
import { MiddlewaresController, ServicesController } from './definitions.controller';
import { DefinitionsService } from './definitions.service';
import { RoutingMiddleware } from './middleware.entity';
import { ROUTING_SETTINGS } from './middleware-manager.settings';
import { RoutingResourceMiddleware } from './resource-middleware.entity';
import { RoutingResourceService } from './resource-service.entity';
import { RoutingResource } from './resource.entity';
import { ResourceWatcher } from './resource-watcher.service';
import { ResourcesController } from './resources.controller';
import { ResourcesService } from './resources.service';
import { PluginCatalogue } from './plugin-catalogue.service';
import { PluginsController } from './plugins.controller';
import { PluginsService } from './plugins.service';
import { RoutingEvents } from './routing-events';
import { RoutingService } from './service.entity';
import { TraefikConfigController } from './traefik-config.controller';
import { TraefikConfigService } from './traefik-config.service';

/** The Traefik middleware manager (middleware-manager v3 drop-in): `/api/*` and `/health`. */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      RoutingMiddleware,
      RoutingService,
      RoutingResource,
      RoutingResourceMiddleware,
      RoutingResourceService,
    ]),
  ],
  controllers: [
    MiddlewaresController,
    ServicesController,
    ResourcesController,
    DataSourcesController,
    TraefikConfigController,
    PluginsController,
  ],
  providers: [
    {
      provide: ROUTING_SETTINGS,
      inject: [KEEL_SETTINGS],
      useFactory: (settings: KeelSettings) => settings.routing,
    },
    RoutingEvents,
    DataSourceStore,
    DataSourcesService,
    DefinitionsService,
    ResourcesService,
    ResourceWatcher,
    TraefikConfigService,
    PluginCatalogue,
    PluginsService,
  ],
  exports: [ResourceWatcher, TraefikConfigService],
})
export class MiddlewareManagerModule {}
