import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';

const patterns: ApiPropertyOptions = {
  oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
  nullable: true,
  description: 'Name patterns (gitignore-style) matched against a file name or URL path',
};

/** Fields answered by `GET /v3/settings` (client secrets are write-only). */
export class SettingsBody {
  @ApiPropertyOptional({ type: 'integer', nullable: true, description: 'Upper bound of a chunk in characters; null is the default (1000)' }) chunkSize?: number | null;
  @ApiPropertyOptional({ nullable: true }) shouldLLMFilter?: boolean | null;
  @ApiPropertyOptional({ nullable: true }) filterPrompt?: string | null;
  @ApiPropertyOptional(patterns) includeItems?: string | string[] | null;
  @ApiPropertyOptional(patterns) excludeItems?: string | string[] | null;
  @ApiPropertyOptional({ nullable: true }) githubClientId?: string | null;
  @ApiPropertyOptional({ nullable: true }) githubCustomKeyEnabled?: boolean | null;
  @ApiPropertyOptional({ nullable: true }) googleDriveClientId?: string | null;
  @ApiPropertyOptional({ nullable: true }) googleDriveCustomKeyEnabled?: boolean | null;
  @ApiPropertyOptional({ nullable: true }) notionClientId?: string | null;
  @ApiPropertyOptional({ nullable: true }) notionCustomKeyEnabled?: boolean | null;
  @ApiPropertyOptional({ nullable: true }) onedriveClientId?: string | null;
  @ApiPropertyOptional({ nullable: true }) onedriveCustomKeyEnabled?: boolean | null;
}

/** `PATCH /v3/settings`: only the fields sent change; -1 or null resets `chunkSize`. */
export class UpdateSettingsBody extends SettingsBody {
  @ApiPropertyOptional({ type: 'integer', nullable: true, description: '-1 or null for the default, else 100 to 20000 characters' }) declare chunkSize?: number | null;
  @ApiPropertyOptional({ nullable: true, writeOnly: true }) githubClientSecret?: string | null;
  @ApiPropertyOptional({ nullable: true, writeOnly: true }) googleDriveClientSecret?: string | null;
  @ApiPropertyOptional({ nullable: true, writeOnly: true }) notionClientSecret?: string | null;
  @ApiPropertyOptional({ nullable: true, writeOnly: true }) onedriveClientSecret?: string | null;
}

export class SettingsUpdateResponse {
  @ApiProperty() orgId!: string;
  @ApiProperty() orgSlug!: string;
  @ApiProperty({ type: SettingsBody, description: 'The fields changed, as stored' }) updated!: SettingsBody;
}
