/** The organization settings (every field of the SDK's `SettingUpdateParams`) by kind, and their limits. */

export type SettingKind = 'chunkSize' | 'boolean' | 'text' | 'secret' | 'patterns';

export const SETTING_FIELDS = {
  chunkSize: 'chunkSize',
  shouldLLMFilter: 'boolean',
  filterPrompt: 'text',
  includeItems: 'patterns',
  excludeItems: 'patterns',
  githubClientId: 'text',
  githubClientSecret: 'secret',
  githubCustomKeyEnabled: 'boolean',
  googleDriveClientId: 'text',
  googleDriveClientSecret: 'secret',
  googleDriveCustomKeyEnabled: 'boolean',
  notionClientId: 'text',
  notionClientSecret: 'secret',
  notionCustomKeyEnabled: 'boolean',
  onedriveClientId: 'text',
  onedriveClientSecret: 'secret',
  onedriveCustomKeyEnabled: 'boolean',
} as const satisfies Record<string, SettingKind>;

export type SettingName = keyof typeof SETTING_FIELDS;
export const SETTING_NAMES = Object.keys(SETTING_FIELDS) as SettingName[];

export const CHUNK_SIZE = { min: 100, max: 20_000 } as const;
export const SETTING_TEXT_MAX = 10_000;
export const PATTERNS_MAX = 1000;
