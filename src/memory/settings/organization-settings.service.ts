import { Injectable } from '@nestjs/common';
import { OrganizationRepository } from '../organizations/organization.repository';
import { ChunkOptions, DEFAULT_CHUNKING } from '../pipeline/chunker';
import { itemRefusal, patternList } from './item-patterns';
import { OrganizationSettings } from './organization-settings.entity';
import { SETTING_FIELDS, SETTING_NAMES } from './setting-fields';
import type { SettingName } from './setting-fields';
import type { UpdateSettingsBody } from './dto/settings.dto';

/** Settings are one row per organization (memory/organizations); the slug answered is the id. */

export type SettingsView = Partial<Record<SettingName, unknown>>;

/** What the ingestion pipeline takes from the settings. */
interface IngestionRules {
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
  private readonly rules = new Map<string, { at: number; value: Promise<IngestionRules> }>();

  constructor(private readonly organizations: OrganizationRepository) {}

  async get(org: string): Promise<SettingsView> {
    return view(await this.organizations.settingsOf(org));
  }

  /** Changes only the fields sent; answers them as stored (`updated`). */
  async update(org: string, body: UpdateSettingsBody): Promise<{ orgId: string; orgSlug: string; updated: SettingsView }> {
    // The fields sent, in the order sent, as checked (-1 for chunkSize already null).
    const changes = { ...body } as Partial<Pick<OrganizationSettings, SettingName>>;
    await this.organizations.saveSettings(org, changes);
    this.rules.delete(org);
    const stored = view(await this.organizations.settingsOf(org));
    const updated = Object.fromEntries(Object.keys(changes).filter((k) => k in stored).map((k) => [k, stored[k as SettingName]]));
    return { orgId: org, orgSlug: org, updated };
  }

  ingestionRules(org: string): Promise<IngestionRules> {
    const now = Date.now();
    const cached = this.rules.get(org);
    if (cached && now - cached.at <= RULES_TTL_MS) return cached.value;
    const value = this.organizations.settingsOf(org).then(rulesOf);
    value.catch(() => this.rules.delete(org));
    // Bounded by the organizations in use; expired entries are replaced, so the map stays small.
    this.rules.set(org, { at: now, value });
    return value;
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
  const shown = SETTING_NAMES.filter((name) => SETTING_FIELDS[name] !== 'secret');
  return Object.fromEntries(shown.map((name) => [name, row?.[name] ?? null]));
}
