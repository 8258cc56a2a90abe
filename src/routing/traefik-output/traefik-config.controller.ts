import { Get, Param } from '@nestjs/common';
import type { PipeTransform } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { issue, ValidationError } from '../../common/errors';
import {
  GenerationDetailDto,
  GenerationListDto,
  GenerationListQueryDto,
  TraefikStatusDto,
} from './dto/traefik-history.dto';
import { RoutingQuery } from '../routing-validation';
import { RoutingController, RoutingOperation } from '../routing-operation';
import { TraefikStatusService } from './traefik-status.service';
import { TraefikConfigHistory } from './traefik-config-history.service';
import { TraefikDocument } from './traefik-config.builder';
import { TraefikConfigService } from './traefik-config.service';

/** A generation id in the path: a whole number (a 400 naming `id` otherwise). */
const GenerationId: PipeTransform<string, number> = {
  transform(text) {
    const id = Number(text);
    if (/^\d+$/.test(text) && Number.isSafeInteger(id)) return id;
    throw new ValidationError([issue(['id'], 'must be a generation id (a whole number)', 'invalid_value')], {});
  },
};

@RoutingController('routing: traefik')
export class TraefikConfigController {
  constructor(
    private readonly config: TraefikConfigService,
    private readonly history: TraefikConfigHistory,
    private readonly traefik: TraefikStatusService,
  ) {}

  @Get('api/traefik/status')
  @RoutingOperation('traefik.status', TraefikStatusDto, {
    description:
      "Traefik's live routers, services and middlewares with their status, read through the configured Traefik API data source, and whether each of Keel's routers is loaded and healthy there ({configured: false} when no Traefik API source is configured; error says why Traefik could not be read)",
  })
  traefikStatus(): Promise<TraefikStatusDto> {
    return this.traefik.status();
  }

  @Get(['api/v1/traefik-config', 'api/traefik-config'])
  @ApiOperation({
    operationId: 'traefik.config',
    description: "Dynamic configuration for Traefik's HTTP provider (Keel's own objects referenced as @http)",
  })
  @ApiResponse({ status: 200, schema: { type: 'object' } })
  traefikConfig(): Promise<TraefikDocument> {
    return this.config.forHttpProvider();
  }

  @Get('api/traefik-config/history')
  @RoutingOperation('traefik.history', GenerationListDto, {
    description:
      'Generations of the Traefik configuration that changed something, newest first (kept by KEEL_MM_HISTORY_MAX and KEEL_MM_HISTORY_DAYS)',
  })
  historyList(@RoutingQuery() query: GenerationListQueryDto): Promise<GenerationListDto> {
    return this.history.list(query);
  }

  @Get('api/traefik-config/history/:id')
  @RoutingOperation('traefik.historyGet', GenerationDetailDto, {
    description:
      'One generation: its whole YAML document and the unified diff against the generation before it',
  })
  @ApiParam({ name: 'id', description: 'Generation id', type: 'integer' })
  historyGet(@Param('id', GenerationId) id: number): Promise<GenerationDetailDto> {
    return this.history.get(id);
  }

  @Get('health')
  @ApiOperation({ operationId: 'routing.health' })
  @ApiResponse({ status: 200, schema: { properties: { status: { type: 'string', example: 'ok' } } } })
  health(): { status: string } {
    return { status: 'ok' };
  }
}
