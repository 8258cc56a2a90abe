import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { MODULE_NAME } from '../plugin-catalogue.service';
import { OptionalText, RequiredText } from '../../routing-validation';
import { pluginKey } from '../traefik-static-config';

/** A Go module version as Traefik's plugin loader takes it (`v1.2.3`, pre-release and build allowed). */
export const VERSION = /^v\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]+)?$/;
const PLAIN_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A Go module path; `orKey` also takes a bare `experimental.plugins` key (an entry declared without moduleName). */
const ModuleName = (api: ApiPropertyOptions, orKey = false) =>
  RequiredText(api, (text) => {
    const moduleName = text.trim();
    const valid = MODULE_NAME.test(moduleName)
      ? pluginKey(moduleName) !== ''
      : orKey && PLAIN_KEY.test(moduleName);
    return moduleName.length > 300 || !valid
      ? 'must be a Go module path such as github.com/owner/repository'
      : undefined;
  });

/** Plugin Hub bodies and answers, as middleware-manager v3 (3.0.x) shapes them, plus a few Keel fields. */
export class PluginDto {
  @ApiProperty({ example: 'GeoBlock' }) displayName: string;
  @ApiProperty({ example: 'middleware' }) type: string;
  @ApiProperty({ description: 'Icon path as the catalogue gives it (may be empty)' }) iconPath: string;
  @ApiProperty({ example: 'github.com/PascalMinder/geoblock', description: 'Go module name' }) import: string;
  @ApiProperty() summary: string;
  @ApiPropertyOptional() author?: string;
  @ApiPropertyOptional({ example: 'v0.3.2', description: 'Version the catalogue suggests' }) version?: string;
  @ApiPropertyOptional({ example: 'Traefik v2.x, v3.x' }) tested_with?: string;
  @ApiPropertyOptional({ type: 'number' }) stars?: number;
  @ApiPropertyOptional() homepage?: string;
  @ApiPropertyOptional() docs?: string;
  @ApiProperty({ description: 'Declared under experimental.plugins of the Traefik static configuration' })
  isInstalled: boolean;
  @ApiPropertyOptional({ example: 'v0.3.2' }) installedVersion?: string;
  @ApiProperty({
    example: 'geoblock',
    description: 'The experimental.plugins key, which a plugin middleware names (Keel)',
  })
  key: string;
  @ApiProperty({
    description: 'False for a plugin declared in the file but absent from the catalogue (Keel)',
  })
  inCatalogue: boolean;
}

export class InstallPluginDto {
  @ModuleName({ example: 'github.com/PascalMinder/geoblock' }) moduleName: string;
  @OptionalText({ example: 'v0.3.2', description: 'Omitted: the version the catalogue names' }, (text) => {
    const version = text.trim();
    return version && (version.length > 100 || !VERSION.test(version))
      ? 'must be a module version such as v1.2.3'
      : undefined;
  })
  version?: string;
}

export class RemovePluginDto {
  @ModuleName(
    {
      example: 'github.com/PascalMinder/geoblock',
      description: 'Module name (or, for an entry declared without one, its experimental.plugins key)',
    },
    true,
  )
  moduleName: string;
}

export class PluginChangedDto {
  @ApiProperty({
    example:
      'Plugin github.com/PascalMinder/geoblock configured in traefik.yml. A Traefik restart is required to load the plugin.',
  })
  message: string;
  @ApiProperty({ example: 'geoblock' }) key: string;
  @ApiProperty() moduleName: string;
  @ApiPropertyOptional({ example: 'v0.3.2' }) version?: string;
  @ApiProperty({ description: 'The Traefik static configuration file written' }) path: string;
}

export class ConfigPathDto {
  @ApiProperty({ example: '/etc/traefik/traefik.yml', description: 'Empty when none is set' }) path: string;
  @ApiPropertyOptional({ description: 'Set when path is empty, or after a change' }) message?: string;
}

export class SetConfigPathDto {
  @RequiredText({
    example: '/etc/traefik/traefik.yml',
    description: 'Absolute path of a .yml/.yaml file whose directory is inside KEEL_ALLOWED_DIRECTORIES',
  })
  path: string;
}

export class RoutingErrorDto {
  @ApiProperty({ example: 400 }) code: number;
  @ApiProperty({ example: 'path: path is outside the directories this server may use' }) message: string;
}
