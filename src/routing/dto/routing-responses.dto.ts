import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DataSourceDto } from '../data-sources/dto/data-source.dto';
import { DefinitionDto } from '../definitions/dto/save-definition.dto';

/** Answers of the resource and data-source routes, as middleware-manager v3 shapes them. */
export class MiddlewareAssignedDto {
  @ApiProperty() resource_id: string;
  @ApiProperty() middleware_id: string;
  @ApiProperty({ type: 'integer' }) priority: number;
}

class MiddlewareLinkDto {
  @ApiProperty() middleware_id: string;
  @ApiProperty({ type: 'integer' }) priority: number;
}

export class MiddlewaresAssignedDto {
  @ApiProperty() resource_id: string;
  @ApiProperty({ type: [MiddlewareLinkDto] }) middlewares: MiddlewareLinkDto[];
  @ApiProperty({ type: [String], description: 'Middleware ids that do not exist' }) skipped: string[];
}

export class ResourceServiceDto {
  @ApiProperty() resource_id: string;
  @ApiProperty({ type: DefinitionDto }) service: DefinitionDto;
}

export class ServiceAssignedDto {
  @ApiProperty() resource_id: string;
  @ApiProperty() service_id: string;
}

export class HttpConfigDto {
  @ApiProperty() id: string;
  @ApiProperty() entrypoints: string;
}

export class TlsConfigDto {
  @ApiProperty() id: string;
  @ApiProperty() tls_domains: string;
}

export class TcpConfigDto {
  @ApiProperty() id: string;
  @ApiProperty() tcp_enabled: boolean;
  @ApiProperty() tcp_entrypoints: string;
  @ApiProperty() tcp_sni_rule: string;
}

export class HeadersConfigDto {
  @ApiProperty() id: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  custom_headers: Record<string, string>;
}

export class PriorityConfigDto {
  @ApiProperty() id: string;
  @ApiProperty({ type: 'integer' }) router_priority: number;
}

export class DataSourceListDto {
  @ApiProperty() active_source: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/DataSourceDto' },
    description: 'Passwords masked',
  })
  sources: Record<string, DataSourceDto>;
}

/** The outcome of this process's latest poll of the active source, as `GET /api/datasource/active` shows it. */
export class LastSyncDto {
  @ApiProperty() source: string;
  @ApiProperty({ description: 'ISO time the poll finished' }) at: string;
  @ApiProperty() ok: boolean;
  @ApiPropertyOptional({ description: 'Why the fetch failed (ok false)' }) error?: string;
  @ApiPropertyOptional({ type: 'integer', description: 'Routers the source listed (ok true)' })
  routers?: number;
  @ApiPropertyOptional({ type: 'integer' }) added?: number;
  @ApiPropertyOptional({ type: 'integer' }) updated?: number;
  @ApiPropertyOptional({ type: 'integer' }) reactivated?: number;
  @ApiPropertyOptional({ type: 'integer' }) disabled?: number;
}

export class ActiveDataSourceDto {
  @ApiProperty() name: string;
  @ApiProperty({ type: DataSourceDto, description: 'Password masked' }) config: DataSourceDto;
  @ApiProperty({
    type: LastSyncDto,
    nullable: true,
    description:
      "This process's latest poll of the active source; null before the first one (or while the source is unconfigured)",
  })
  last_sync: LastSyncDto | null;
}

export class DataSourceChangedDto {
  @ApiProperty() message: string;
  @ApiProperty() name: string;
  @ApiPropertyOptional({ type: DataSourceDto, description: 'Password masked' }) config?: DataSourceDto;
}
