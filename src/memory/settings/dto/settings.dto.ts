import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { Path, UnknownFieldsRefused } from '../../../common/validation/request-fields';
import { Checker, MemoryField } from '../../validation';
import { CHUNK_SIZE, PATTERNS_MAX, SETTING_NAMES, SETTING_TEXT_MAX } from '../setting-fields';

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

/** Every setting: null resets it (sent in a PATCH, it is stored as null). */
const nullOr =
  <T>(read: (check: Checker, value: unknown, at: Path) => T | undefined) =>
  (check: Checker, value: unknown, at: Path): T | null | undefined =>
    value === null ? null : read(check, value, at);

/** -1 or null for the default, else CHUNK_SIZE.min to CHUNK_SIZE.max (stored as null for the default). */
const ChunkSize = (api: ApiPropertyOptions) =>
  MemoryField(
    api,
    'chunkSize',
    nullOr((check, value, at) => {
      const n = check.number(value, at, { integer: true });
      if (n === -1) return null;
      if (n !== undefined && (n < CHUNK_SIZE.min || n > CHUNK_SIZE.max)) check.fail(at, `must be -1 (the default) or between ${CHUNK_SIZE.min} and ${CHUNK_SIZE.max}`);
      return n;
    }),
  );

/** A JSON boolean (not its text). */
const Toggle = (api: ApiPropertyOptions = {}) =>
  MemoryField(
    { type: 'boolean', nullable: true, ...api },
    'toggle',
    nullOr((check, value, at) => {
      if (typeof value !== 'boolean') check.fail(at, 'must be a boolean');
      return typeof value === 'boolean' ? value : undefined;
    }),
  );

const SettingText = (api: ApiPropertyOptions = {}) =>
  MemoryField({ type: 'string', nullable: true, maxLength: SETTING_TEXT_MAX, ...api }, 'settingText', nullOr((check, value, at) => check.string(value, at, { max: SETTING_TEXT_MAX })));

/** Name patterns: one string, or an array of up to PATTERNS_MAX non-empty strings of at most 500 characters. */
const Patterns = (api: ApiPropertyOptions) =>
  MemoryField(
    api,
    'patterns',
    nullOr((check, value, at) => {
      const patterns = Array.isArray(value) ? value : [value];
      if (patterns.length > PATTERNS_MAX) check.fail(at, `must have at most ${PATTERNS_MAX} patterns`);
      patterns.forEach((p, i) => {
        const path = Array.isArray(value) ? [...at, i] : at;
        if (typeof p !== 'string' || !p.trim()) check.fail(path, 'must be a non-empty pattern string (or an array of them)');
        else if (p.length > 500) check.fail(path, 'must be at most 500 characters long');
      });
      return value as string | string[];
    }),
  );

const secret: ApiPropertyOptions = { nullable: true, writeOnly: true };

/** `PATCH /v3/settings`: only the fields sent change, checked in the order sent; -1 or null resets `chunkSize`. */
@UnknownFieldsRefused(() => `is not a setting (settings are ${SETTING_NAMES.join(', ')})`, 'as sent')
export class UpdateSettingsBody {
  @ChunkSize({ type: 'integer', nullable: true, description: '-1 or null for the default, else 100 to 20000 characters' }) chunkSize?: number | null;
  @Toggle() shouldLLMFilter?: boolean | null;
  @SettingText() filterPrompt?: string | null;
  @Patterns(patterns) includeItems?: string | string[] | null;
  @Patterns(patterns) excludeItems?: string | string[] | null;
  @SettingText() githubClientId?: string | null;
  @SettingText(secret) githubClientSecret?: string | null;
  @Toggle() githubCustomKeyEnabled?: boolean | null;
  @SettingText() googleDriveClientId?: string | null;
  @SettingText(secret) googleDriveClientSecret?: string | null;
  @Toggle() googleDriveCustomKeyEnabled?: boolean | null;
  @SettingText() notionClientId?: string | null;
  @SettingText(secret) notionClientSecret?: string | null;
  @Toggle() notionCustomKeyEnabled?: boolean | null;
  @SettingText() onedriveClientId?: string | null;
  @SettingText(secret) onedriveClientSecret?: string | null;
  @Toggle() onedriveCustomKeyEnabled?: boolean | null;
}

export class SettingsUpdateResponse {
  @ApiProperty() orgId!: string;
  @ApiProperty() orgSlug!: string;
  @ApiProperty({ type: SettingsBody, description: 'The fields changed, as stored' }) updated!: SettingsBody;
}
