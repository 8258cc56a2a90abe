import type { ProviderAuth } from './auth-store';
import { CatalogProvider, OPENAI_COMPATIBLE } from './provider-catalog';
import type { ModelInfo, ProviderInfo } from './provider.service';

/**
 * Keel's providers and models in the shapes of opencode's v2 API (`/api/provider`, `/api/model`,
 * `/api/integration`), which the 1.18 TUI reads. Credentials never appear: `settings` are the
 * provider's config options without `apiKey` (opencode 1.18.33 sends the key there).
 */

interface RequestOptions {
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface ProviderV2Info {
  id: string;
  name: string;
  api: { type: 'aisdk'; package: string; url?: string; settings?: Record<string, unknown> };
  request: RequestOptions;
}

export interface ModelV2Info {
  id: string;
  providerID: string;
  family?: string;
  name: string;
  api: { id: string; type: 'aisdk'; package: string; url?: string; settings?: Record<string, unknown> };
  capabilities: { tools: boolean; input: string[]; output: string[] };
  request: RequestOptions;
  variants: ({ id: string } & RequestOptions)[];
  time: { released: number };
  cost: { tier?: { type: 'context'; size: number }; input: number; output: number; cache: { read: number; write: number } }[];
  status: ModelInfo['status'];
  enabled: boolean;
  limit: { context: number; output: number };
}

export interface IntegrationInfo {
  id: string;
  name: string;
  methods: ({ type: 'key' } | { type: 'env'; names: string[] })[];
  connections: ({ type: 'env'; name: string } | { type: 'credential'; id: string; label: string })[];
}

/** A provider as Keel knows it: what `/config/providers` lists, the catalog entry, and a base URL config sets. */
interface ProviderSource {
  info: ProviderInfo;
  catalog: CatalogProvider;
  configuredBaseURL?: string;
}

/** Provider options as the AI SDK provider gets them, less what the v2 shape carries elsewhere (and the key). */
function settingsOf(info: ProviderInfo): Record<string, unknown> | undefined {
  const { baseURL: _baseURL, headers: _headers, apiKey: _apiKey, ...settings } = info.options;
  return Object.keys(settings).length ? settings : undefined;
}

function headersOf(info: ProviderInfo): Record<string, string> {
  const headers = info.options.headers;
  return headers && typeof headers === 'object' ? (headers as Record<string, string>) : {};
}

export function providerV2(source: ProviderSource): ProviderV2Info {
  const url = source.configuredBaseURL ?? source.catalog.api;
  const settings = settingsOf(source.info);
  return {
    id: source.info.id,
    name: source.info.name,
    api: { type: 'aisdk', package: source.catalog.npm ?? OPENAI_COMPATIBLE, ...(url ? { url } : {}), ...(settings ? { settings } : {}) },
    request: { headers: headersOf(source.info), body: {} },
  };
}

const MODALITIES = ['text', 'audio', 'image', 'video', 'pdf'] as const;

export function modelV2(source: ProviderSource, model: ModelInfo): ModelV2Info {
  const url = source.configuredBaseURL ?? (model.api.url || undefined);
  const settings = settingsOf(source.info);
  const released = Date.parse(model.release_date);
  const over = model.cost.experimentalOver200K;
  return {
    id: model.id,
    providerID: model.providerID,
    ...(model.family ? { family: model.family } : {}),
    name: model.name,
    api: { id: model.api.id, type: 'aisdk', package: model.api.npm, ...(url ? { url } : {}), ...(settings ? { settings } : {}) },
    capabilities: {
      tools: model.capabilities.toolcall,
      input: MODALITIES.filter((m) => model.capabilities.input[m]),
      output: MODALITIES.filter((m) => model.capabilities.output[m]),
    },
    request: { headers: model.headers, body: model.options },
    variants: Object.entries(model.variants).map(([id, body]) => ({ id, headers: {}, body })),
    time: { released: Number.isFinite(released) ? released : 0 },
    cost: [
      { input: model.cost.input, output: model.cost.output, cache: model.cost.cache },
      ...(over ? [{ tier: { type: 'context' as const, size: 200_000 }, input: over.input, output: over.output, cache: over.cache }] : []),
    ],
    status: model.status,
    enabled: true,
    limit: model.limit,
  };
}

const CREDENTIAL_LABELS: Record<ProviderAuth['type'], string> = { api: 'API key', oauth: 'OAuth', wellknown: 'Well-known token' };

/**
 * How a catalog provider can be connected (a key through `PUT /auth/{id}`, or its environment
 * variables) and how it is connected now: each set variable, and stored credentials (named by the
 * provider, Keel's one credential per provider).
 */
export function integrationV2(catalog: CatalogProvider, stored: ProviderAuth | undefined, env: NodeJS.ProcessEnv): IntegrationInfo {
  return {
    id: catalog.id,
    name: catalog.name,
    methods: [{ type: 'key' }, { type: 'env', names: catalog.env }],
    connections: [
      ...catalog.env.filter((name) => env[name]).map((name) => ({ type: 'env' as const, name })),
      ...(stored ? [{ type: 'credential' as const, id: catalog.id, label: CREDENTIAL_LABELS[stored.type] }] : []),
    ],
  };
}
