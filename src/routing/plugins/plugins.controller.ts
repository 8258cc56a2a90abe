import { Delete, Get, HttpCode, Post, Put, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import {
  ConfigPathDto,
  InstallPluginDto,
  PluginChangedDto,
  PluginDto,
  RemovePluginDto,
  RoutingErrorDto,
  SetConfigPathDto,
} from './dto/plugin.dto';
import { PluginsService } from './plugins.service';
import { RoutingBody } from '../routing-validation';
import { RoutingController, RoutingOperation } from '../routing-operation';

const CATALOGUE_HEADERS = {
  'X-Plugin-Catalogue-Source': {
    description: '`remote` (the configured catalogue URL) or `bundled` (the copy shipped with Keel)',
    schema: { type: 'string', enum: ['remote', 'bundled'] },
  },
  'X-Plugin-Catalogue-Problem': {
    description: 'Why the configured catalogue URL was not used, when it failed',
    schema: { type: 'string' },
  },
};

/** Header values are Latin-1 text on one line. */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 500);
}

@RoutingController('routing: plugins', 'api/plugins')
export class PluginsController {
  constructor(private readonly plugins: PluginsService) {}

  @Get()
  @ApiOperation({
    operationId: 'plugins.list',
    description:
      'The plugin catalogue (KEEL_PLUGIN_CATALOGUE_URL, else the catalogue bundled with Keel) merged with what the Traefik static configuration declares under experimental.plugins; plugins declared there but absent from the catalogue are listed last.',
  })
  @ApiResponse({ status: 200, type: [PluginDto], headers: CATALOGUE_HEADERS })
  async list(@Res({ passthrough: true }) response: Response): Promise<PluginDto[]> {
    const { plugins, catalogue } = await this.plugins.list();
    response.setHeader('X-Plugin-Catalogue-Source', catalogue.source);
    if (catalogue.problem) response.setHeader('X-Plugin-Catalogue-Problem', headerText(catalogue.problem));
    return plugins;
  }

  @Get('configpath')
  @RoutingOperation('plugins.configPath', ConfigPathDto, {
    description: 'The Traefik static configuration file the hub edits',
  })
  configPath(): ConfigPathDto {
    return this.plugins.getConfigPath();
  }

  @Put('configpath')
  @RoutingOperation('plugins.setConfigPath', ConfigPathDto, {
    body: SetConfigPathDto,
    description:
      'Sets and saves (unlike v3, it survives a restart) the Traefik static configuration path: an absolute .yml/.yaml path whose directory exists inside KEEL_ALLOWED_DIRECTORIES; the file itself may not exist yet.',
  })
  @ApiResponse({ status: 400, type: RoutingErrorDto, description: 'The message names the field (path)' })
  setConfigPath(@RoutingBody() body: SetConfigPathDto): Promise<ConfigPathDto> {
    return this.plugins.setConfigPath(body);
  }

  @Post('install')
  @HttpCode(200)
  @RoutingOperation('plugins.install', PluginChangedDto, {
    body: InstallPluginDto,
    description:
      'Declares experimental.plugins.<key>: {moduleName, version} in the Traefik static configuration (created when absent), written atomically with its comments and other content kept. Installing an installed plugin changes its version. Traefik must be restarted to load it.',
  })
  @ApiResponse({
    status: 400,
    type: RoutingErrorDto,
    description: 'Bad moduleName or version, or no/unusable configuration path (path)',
  })
  @ApiResponse({
    status: 409,
    type: RoutingErrorDto,
    description: 'The static configuration is not a valid YAML mapping; it is left untouched',
  })
  install(@RoutingBody() body: InstallPluginDto): Promise<PluginChangedDto> {
    return this.plugins.install(body);
  }

  @Delete('remove')
  @RoutingOperation('plugins.remove', PluginChangedDto, {
    body: RemovePluginDto,
    description: 'Removes the plugin from experimental.plugins (and emptied sections), written atomically.',
  })
  @ApiResponse({
    status: 400,
    type: RoutingErrorDto,
    description: 'Bad moduleName, or no/unusable configuration path (path)',
  })
  @ApiResponse({
    status: 404,
    type: RoutingErrorDto,
    description: 'No such file, or the plugin is not declared in it',
  })
  @ApiResponse({
    status: 409,
    type: RoutingErrorDto,
    description: 'The static configuration is not a valid YAML mapping',
  })
  remove(@RoutingBody() body: RemovePluginDto): Promise<PluginChangedDto> {
    return this.plugins.remove(body);
  }
}
