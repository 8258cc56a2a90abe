import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class UpdateHttpConfigDto {
  @ApiProperty({ description: 'Comma-separated entry points; empty means websecure', example: 'websecure' })
  entrypoints: string;
}

export class UpdateTlsConfigDto {
  @ApiProperty({ description: 'Comma-separated extra certificate domains', example: 'www.example.com' })
  tls_domains: string;
}

export class UpdateTcpConfigDto {
  @ApiProperty()
  tcp_enabled: boolean;

  @ApiPropertyOptional({ description: 'Comma-separated; empty means tcp' })
  tcp_entrypoints?: string;

  @ApiPropertyOptional({ description: 'HostSNI(…) rule; empty means HostSNI(`<host>`)' })
  tcp_sni_rule?: string;
}

export class UpdateHeadersConfigDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { 'X-Forwarded-Proto': 'https' },
  })
  custom_headers: Record<string, string>;
}

export class UpdatePriorityConfigDto {
  @ApiProperty({ minimum: 1, example: 200 })
  router_priority: number;
}
