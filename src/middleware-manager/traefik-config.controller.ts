import { Controller, Get } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { TraefikDocument } from './traefik-config.builder';
import { TraefikConfigService } from './traefik-config.service';

@ApiTags('routing: traefik')
@ApiBasicAuth('basic')
@Controller()
export class TraefikConfigController {
  constructor(private readonly config: TraefikConfigService) {}

  @Get(['api/v1/traefik-config', 'api/traefik-config'])
  @ApiOperation({
    operationId: 'traefik.config',
    description: "Dynamic configuration for Traefik's HTTP provider (Keel's own objects referenced as @http)",
  })
  @ApiResponse({ status: 200, schema: { type: 'object' } })
  traefikConfig(): Promise<TraefikDocument> {
    return this.config.forHttpProvider();
  }

  @Get('health')
  @ApiOperation({ operationId: 'routing.health' })
  @ApiResponse({ status: 200, schema: { properties: { status: { type: 'string', example: 'ok' } } } })
  health(): { status: string } {
    return { status: 'ok' };
  }
}
