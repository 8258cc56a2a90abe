import { ApiProperty } from '@nestjs/swagger';

/** Body of POST/PUT `/api/middlewares` and `/api/services` (full replace). */
export class SaveDefinitionDto {
  @ApiProperty({ example: 'Authelia' })
  name: string;

  @ApiProperty({ description: 'Traefik middleware or service kind', example: 'forwardAuth' })
  type: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The body Traefik expects under the type key',
  })
  config: Record<string, unknown>;
}

export class DefinitionDto extends SaveDefinitionDto {
  @ApiProperty({ description: '16 hex chars (seeded rows keep their slugs)', example: '3f2a9c0d1e4b5a67' })
  id: string;
}

export class MessageDto {
  @ApiProperty()
  message: string;
}
