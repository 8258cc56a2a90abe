import { ApiProperty } from '@nestjs/swagger';

export class AssignedMiddlewareDto {
  @ApiProperty()
  id: string;
  @ApiProperty()
  name: string;
  @ApiProperty()
  priority: number;
}

/** middleware-manager v3's resource object, with structured fields beside the v3 strings. */
export class ResourceDto {
  @ApiProperty() id: string;
  @ApiProperty() host: string;
  @ApiProperty() service_id: string;
  @ApiProperty() org_id: string;
  @ApiProperty() site_id: string;
  @ApiProperty({ enum: ['active', 'disabled'] }) status: string;
  @ApiProperty() entrypoints: string;
  @ApiProperty() tls_domains: string;
  @ApiProperty() tcp_enabled: boolean;
  @ApiProperty() tcp_entrypoints: string;
  @ApiProperty() tcp_sni_rule: string;
  @ApiProperty({ description: 'JSON object text or empty' }) custom_headers: string;
  @ApiProperty() router_priority: number;
  @ApiProperty() source_type: string;
  @ApiProperty({ description: 'v3 summary "id:name:priority,…", execution order' }) middlewares: string;
  @ApiProperty({ type: [AssignedMiddlewareDto], description: 'Execution order' })
  assigned_middlewares: AssignedMiddlewareDto[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  custom_headers_map: Record<string, string>;
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true })
  assigned_service: { id: string; name: string; type: string } | null;
}
