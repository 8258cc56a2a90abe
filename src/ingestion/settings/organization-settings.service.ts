import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ChunkOptions, DEFAULT_CHUNKING } from '../pipeline/chunker';
import { Checker, objectBody } from '../validation';
import { itemRefusal, patternList } from './item-patterns';
import { OrganizationSettings } from './organization-settings.entity';

/**
 * Keel has one organisation: API keys (`KEEL_API_KEYS`) are not tied to organisations and every
 * memory route sees the same documents, so the settings are that organisation's single row.
 */
export const ORGANIZATION = { id: 'local', slug: 'local' } as const;

type SettingKind = 'chunkSize' | 'boolean' | 'text' | 'secret' | 'patterns';

/** Every field of the SDK's `SettingUpdateParams`, by kind. */
const FIELDS = {
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

export type SettingName = keyof typeof FIELDS;
export type SettingsView = Partial<Record<SettingName, unknown>>;

export const CHUNK_SIZE = { min: 100, max: 20_000 } as const;
const TEXT_MAX = 10_000;
const PATTERNS_MAX = 1000;

/** What the ingestion pipeline takes from the settings. */
export interface IngestionRules {
  chunking: ChunkOptions;
  /** Why a document with this name (file name, URL path) is not ingested, or undefined. */
  refusal(name: string): string | undefined;
  /** The organisation's filter prompt, when `shouldLLMFilter` asks for it. */
  filterPrompt?: string;
}

/** Rules are read at most once a second per process; an update in this process applies at once. */
const RULES_TTL_MS = 1000;

@Injectable()
export class OrganizationSettingsService {
  private rules?: { at: number; value: Promise<IngestionRules> };

  constructor(@InjectRepository(OrganizationSettings) private readonly settings: Repository<OrganizationSettings>) {}

  async get(): Promise<SettingsView> {
    return view(await this.settings.findOneBy({ orgId: ORGANIZATION.id }));
  }

  /** Changes only the fields sent; answers them as stored (`updated`). */
  async update(input: unknown): Promise<{ orgId: string; orgSlug: string; updated: SettingsView }> {
    const changes = parseUpdate(input);
    // Insert-if-absent then update: two replicas' first PATCHes cannot both insert the row.
    await this.settings.createQueryBuilder().insert().values({ orgId: ORGANIZATION.id, updatedAt: Date.now() }).orIgnore().execute();
    await this.settings.update({ orgId: ORGANIZATION.id }, { ...changes, updatedAt: Date.now() });
    this.rules = undefined;
    const stored = view(await this.settings.findOneBy({ orgId: ORGANIZATION.id }));
    const updated = Object.fromEntries(Object.keys(changes).filter((k) => k in stored).map((k) => [k, stored[k as SettingName]]));
    return { orgId: ORGANIZATION.id, orgSlug: ORGANIZATION.slug, updated };
  }

  ingestionRules(): Promise<IngestionRules> {
    const now = Date.now();
    if (!this.rules || now - this.rules.at > RULES_TTL_MS) {
      const value = this.settings.findOneBy({ orgId: ORGANIZATION.id }).then(rulesOf);
      value.catch(() => (this.rules = undefined));
      this.rules = { at: now, value };
    }
    return this.rules.value;
  }
}

function rulesOf(row: OrganizationSettings | null): IngestionRules {
  const include = patternList(row?.includeItems);
  const exclude = patternList(row?.excludeItems);
  const maxChars = row?.chunkSize ?? DEFAULT_CHUNKING.maxChars;
  const filterPrompt = row?.shouldLLMFilter && row.filterPrompt?.trim() ? row.filterPrompt.trim() : undefined;
  return {
    // The overlap stays under a third of a chunk, so small chunks still advance.
    chunking: { ...DEFAULT_CHUNKING, maxChars, maxOverlapChars: Math.min(DEFAULT_CHUNKING.maxOverlapChars, Math.floor(maxChars / 3)) },
    refusal: (name) => itemRefusal(name, include, exclude),
    filterPrompt,
  };
}

/** Every field, null when unset; client secrets are write-only and never answered. */
function view(row: OrganizationSettings | null): SettingsView {
  const out: SettingsView = {};
  for (const [name, kind] of Object.entries(FIELDS) as [SettingName, SettingKind][]) {
    if (kind !== 'secret') out[name] = row?.[name] ?? null;
  }
  return out;
}

function parseUpdate(input: unknown): Partial<Pick<OrganizationSettings, SettingName>> {
  const body = objectBody(input);
  const check = new Checker();
  const changes: Partial<Record<SettingName, unknown>> = {};
  for (const [key, value] of Object.entries(body)) {
    const kind = (FIELDS as Record<string, SettingKind>)[key];
    if (!kind) {
      check.fail([key], `is not a setting (settings are ${Object.keys(FIELDS).join(', ')})`);
      continue;
    }
    if (value === undefined) continue;
    const name = key as SettingName;
    if (value === null) {
      changes[name] = null;
      continue;
    }
    if (kind === 'chunkSize') {
      const n = check.number(value, [key], { integer: true });
      if (n === -1) changes[name] = null;
      else if (n !== undefined && (n < CHUNK_SIZE.min || n > CHUNK_SIZE.max)) check.fail([key], `must be -1 (the default) or between ${CHUNK_SIZE.min} and ${CHUNK_SIZE.max}`);
      else if (n !== undefined) changes[name] = n;
    } else if (kind === 'boolean') {
      if (typeof value !== 'boolean') check.fail([key], 'must be a boolean');
      else changes[name] = value;
    } else if (kind === 'text' || kind === 'secret') {
      const text = check.string(value, [key], { max: TEXT_MAX });
      if (text !== undefined) changes[name] = text;
    } else {
      const patterns = Array.isArray(value) ? value : [value];
      if (patterns.length > PATTERNS_MAX) check.fail([key], `must have at most ${PATTERNS_MAX} patterns`);
      patterns.forEach((p, i) => {
        const path = Array.isArray(value) ? [key, i] : [key];
        if (typeof p !== 'string' || !p.trim()) check.fail(path, 'must be a non-empty pattern string (or an array of them)');
        else if (p.length > 500) check.fail(path, 'must be at most 500 characters long');
      });
      changes[name] = value;
    }
  }
  check.throwIfAny(input);
  // Each value was checked against its field's kind above.
  return changes as Partial<Pick<OrganizationSettings, SettingName>>;
}
