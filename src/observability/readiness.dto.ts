import { ApiProperty } from '@nestjs/swagger';

export class ReadinessDto {
  @ApiProperty({ description: 'True when the database answers and every migration has run' })
  ready: boolean;

  @ApiProperty({ example: 'ok', description: '`ok`, or `unreachable: <reason>`' })
  database: string;

  @ApiProperty({ enum: ['done', 'pending', 'unknown'] })
  migrations: 'done' | 'pending' | 'unknown';
}
