import { WholeNumber } from '../../routing-validation';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class GenerationSummaryDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({
    description: "What caused it: the routing events of the burst ('; '-separated), or 'start'",
  })
  trigger: string;
  @ApiProperty({ type: 'integer', description: 'Lines the diff adds' }) added: number;
  @ApiProperty({ type: 'integer', description: 'Lines the diff removes' }) removed: number;
}

class RetentionDto {
  @ApiProperty({ type: 'integer' }) max: number;
  @ApiProperty({ type: 'integer' }) days: number;
}

export class GenerationListDto {
  @ApiProperty({ type: [GenerationSummaryDto] }) generations: GenerationSummaryDto[];
  @ApiProperty({ type: RetentionDto }) retention: RetentionDto;
}

export class GenerationDetailDto extends GenerationSummaryDto {
  @ApiProperty({ description: 'The whole document as YAML' }) document: string;
  @ApiProperty({ description: "Unified diff against the generation before it ('' for the first kept)" })
  diff: string;
  @ApiProperty({ type: 'integer', nullable: true }) previous_id: number | null;
}

export class TraefikObjectDto {
  @ApiProperty({ description: 'name@provider' }) name: string;
  @ApiProperty() provider: string;
  @ApiProperty({ description: "Traefik's status: enabled, disabled or warning" }) status: string;
  @ApiPropertyOptional() type?: string;
  @ApiPropertyOptional() rule?: string;
  @ApiPropertyOptional() service?: string;
  @ApiPropertyOptional({ type: [String] }) middlewares?: string[];
  @ApiProperty({ type: [String], description: "Traefik's error messages for it" }) errors: string[];
}

class KeelRouterStatusDto {
  @ApiProperty() resource_id: string;
  @ApiProperty() host: string;
  @ApiProperty({ description: 'The router name Keel generates (without @provider)' }) router: string;
  @ApiProperty({ description: 'Whether Traefik has it loaded' }) loaded: boolean;
  @ApiProperty({ description: 'Loaded, enabled and with no error' }) healthy: boolean;
  @ApiProperty({ nullable: true, type: String, description: "Traefik's status, null when not loaded" })
  status: string | null;
  @ApiProperty({ type: [String] }) errors: string[];
}

export class TraefikStatusDto {
  @ApiProperty({ description: 'Whether a Traefik API data source is configured' }) configured: boolean;
  @ApiProperty({ nullable: true, type: String, description: 'The data source read' }) source: string | null;
  @ApiProperty({ nullable: true, type: String }) url: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Why Traefik could not be read, in words' })
  error: string | null;
  @ApiProperty({ type: [TraefikObjectDto] }) routers: TraefikObjectDto[];
  @ApiProperty({ type: [TraefikObjectDto] }) services: TraefikObjectDto[];
  @ApiProperty({ type: [TraefikObjectDto] }) middlewares: TraefikObjectDto[];
  @ApiProperty({ type: [KeelRouterStatusDto] }) keel_routers: KeelRouterStatusDto[];
}

/** Query of GET /api/traefik-config/history (whole numbers, kept as sent). */
export class GenerationListQueryDto {
  @WholeNumber({ description: '1 to 500, default 50' }, 500)
  limit?: string;

  @WholeNumber(
    { description: 'Only generations older than this id (the next page)' },
    Number.MAX_SAFE_INTEGER,
  )
  before?: string;
}
