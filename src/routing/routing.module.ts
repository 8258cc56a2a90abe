import { Module } from '@nestjs/common';
import { KEEL_SETTINGS, KeelSettings } from '../common/settings';
import { DataSourceStore } from './data-sources/data-source.store';
import { DataSourcesController } from './data-sources/data-sources.controller';
import { DataSourcesService } from './data-sources/data-sources.service';
import { MiddlewaresController, ServicesController } from './definitions/definitions.controller';
import { DefinitionRepository } from './definitions/definition.repository';
import { DefinitionsService } from './definitions/definitions.service';
import { ROUTING_SETTINGS } from './middleware-manager.settings';
import { ResourceRepository } from './resources/resource.repository';
import { ResourceWatcher } from './resources/resource-watcher.service';
import { ResourcesController } from './resources/resources.controller';
import { ResourcesService } from './resources/resources.service';
import { PluginCatalogue } from './plugins/plugin-catalogue.service';
import { PluginsController } from './plugins/plugins.controller';
import { PluginsService } from './plugins/plugins.service';
import { RoutingEvents } from './routing-events';
import { TraefikConfigController } from './traefik-output/traefik-config.controller';
import { TraefikConfigService } from './traefik-output/traefik-config.service';
import { TraefikConfigHistory } from './traefik-output/traefik-config-history.service';
import { TraefikGenerationRepository } from './traefik-output/traefik-generation.repository';
import { TraefikStatusService } from './traefik-output/traefik-status.service';

/** The Traefik middleware manager (middleware-manager v3 drop-in): `/api/*` and `/health`. */
@Module({
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
    DefinitionRepository,
    DefinitionsService,
    ResourceRepository,
    ResourcesService,
    ResourceWatcher,
    TraefikConfigService,
    TraefikGenerationRepository,
    TraefikConfigHistory,
    TraefikStatusService,
    PluginCatalogue,
    PluginsService,
  ],
  exports: [ResourceWatcher, TraefikConfigService],
})
export class RoutingModule {}
