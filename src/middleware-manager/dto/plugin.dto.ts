import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

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
  @ApiProperty({ example: 'github.com/PascalMinder/geoblock' }) moduleName: string;
  @ApiPropertyOptional({ example: 'v0.3.2', description: 'Omitted: the version the catalogue names' })
  version?: string;
}

export class RemovePluginDto {
  @ApiProperty({
    example: 'github.com/PascalMinder/geoblock',
    description: 'Module name (or, for an entry declared without one, its experimental.plugins key)',
  })
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
  @ApiProperty({
    example: '/etc/traefik/traefik.yml',
    description: 'Absolute path of a .yml/.yaml file whose directory is inside KEEL_ALLOWED_DIRECTORIES',
  })
  path: string;
}

export class RoutingErrorDto {
  @ApiProperty({ example: 400 }) code: number;
  @ApiProperty({ example: 'path: path is outside the directories this server may use' }) message: string;
}
