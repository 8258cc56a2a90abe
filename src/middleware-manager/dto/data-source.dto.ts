import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class BasicAuthDto {
  @ApiProperty()
  username: string;

  @ApiProperty({
    description: 'Masked as •••••••• in answers; sending the mask back keeps the stored password',
  })
  password: string;
}

export class DataSourceDto {
  @ApiProperty({ enum: ['pangolin', 'traefik'] })
  type: 'pangolin' | 'traefik';

  @ApiProperty({ example: 'http://pangolin:3001/api/v1' })
  url: string;

  @ApiPropertyOptional({ type: BasicAuthDto })
  basic_auth?: BasicAuthDto;

  @ApiPropertyOptional({
    type: BasicAuthDto,
    description:
      'Same as basic_auth (the spelling middleware-manager UIs send); stored and answered as basic_auth',
  })
  basicAuth?: BasicAuthDto;
}

export class SetActiveDataSourceDto {
  @ApiProperty({ example: 'pangolin' })
  name: string;
}
