import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class AssignMiddlewareDto {
  @ApiProperty()
  middleware_id: string;

  @ApiPropertyOptional({ description: 'Higher runs first; missing or ≤ 0 means 200', default: 200 })
  priority?: number;
}

export class AssignMiddlewaresDto {
  @ApiProperty({ type: [AssignMiddlewareDto] })
  middlewares: AssignMiddlewareDto[];
}

export class AssignServiceDto {
  @ApiProperty()
  service_id: string;
}
