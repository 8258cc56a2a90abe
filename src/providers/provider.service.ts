/**
 * ProviderService — LLM providers and models of an Instance.
 *
 *   resolveModel(instance, providerID, modelID): Promise<ResolvedModel>   everything needed to call the model (throws ProviderModelNotFoundError 400)
 *   languageModel(instance, providerID, modelID): Promise<LanguageModel>  the AI SDK model, built by `createLanguageModel(resolved)`
 *   defaultModel(instance): Promise<ModelRef>        config `model`, else the best-ranked model of the first connected provider
 *   smallModel(instance): Promise<ModelRef | undefined>  config `small_model`, else a small model of the default provider; undefined → use the main model
 *   providersV2 / modelsV2 / integrationsV2(instance)  opencode's v2 API shapes (./provider-v2): connected providers (a key
 *                                                    from env, auth or config, or a configured baseURL), their models, and
 *                                                    how each catalog provider can be connected
 *
 * Sources of a provider: the shipped catalog (`catalog.json`), config `provider` entries (npm,
 * api/options.baseURL, options.apiKey, models, whitelist/blacklist), `enabled_providers` /
 * `disabled_providers`, env keys (`process.env`, read at call time) and stored credentials
 * (`PUT /auth/{providerID}`). Keys never appear in any response.
 */
import { Injectable } from '@nestjs/common';
import type { LanguageModel } from 'ai';
import { BadRequestError } from '../common/errors';
import { ConfigService } from '../config/config.service';
import type { Config } from '../config/config.service';
import type { Instance } from '../projects/instance.service';
import { AuthStore } from './auth-store';
import type { ProviderAuth } from './auth-store';
import { createLanguageModel } from './language-model';
import { builtInCatalog, CatalogModel, CatalogProvider, catalogFor, OPENAI_COMPATIBLE } from './provider-catalog';
import { IntegrationInfo, integrationV2, ModelV2Info, modelV2, ProviderV2Info, providerV2 } from './provider-v2';
import { ProviderModelNotFoundError } from './provider-errors';

export interface ModelRef {
  providerID: string;
  modelID: string;
}

/** "provider/model" split at the first "/" (model ids may contain more slashes). */
export function parseModel(model: string): ModelRef {
  const slash = model.indexOf('/');
  if (slash <= 0) throw new BadRequestError(`Model "${model}" is not in the form provider/model`, { model });
  return { providerID: model.slice(0, slash), modelID: model.slice(slash + 1) };
}

type Modalities = { text: boolean; audio: boolean; image: boolean; video: boolean; pdf: boolean };

/** The reference `Model`. */
export interface ModelInfo {
  id: string;
  providerID: string;
  api: { id: string; url: string; npm: string };
  name: string;
  family?: string;
  capabilities: {
    temperature: boolean;
    reasoning: boolean;
    attachment: boolean;
    toolcall: boolean;
    input: Modalities;
    output: Modalities;
    interleaved: boolean | { field: 'reasoning_content' | 'reasoning_details' };
  };
  cost: {
    input: number;
    output: number;
    cache: { read: number; write: number };
    experimentalOver200K?: { input: number; output: number; cache: { read: number; write: number } };
  };
  /** 0 means unknown (a config-defined model that states no limit). */
  limit: { context: number; output: number };
  status: 'alpha' | 'beta' | 'deprecated' | 'active';
  options: Record<string, unknown>;
  headers: Record<string, string>;
  release_date: string;
  variants: Record<string, Record<string, unknown>>;
}

/** The reference `Provider` (without `key`: credentials are never sent). */
export interface ProviderInfo {
  id: string;
  name: string;
  source: 'env' | 'config' | 'custom' | 'api';
  env: string[];
  options: Record<string, unknown>;
  models: Record<string, ModelInfo>;
}

/** Which AI SDK provider package builds the model. */
type ProviderSdk = 'anthropic' | 'openai' | 'openai-compatible';

export interface ResolvedModel {
  providerID: string;
  modelID: string;
  provider: ProviderInfo;
  model: ModelInfo;
  sdk: ProviderSdk;
  /** The id sent to the API (`model.api.id`). */
  apiModelID: string;
  apiKey?: string;
  baseURL?: string;
  headers: Record<string, string>;
  /** Provider options from config, then the model's own (without apiKey/baseURL/headers). */
  options: Record<string, unknown>;
}

interface ProviderState {
  info: ProviderInfo;
  catalog: CatalogProvider;
  key?: string;
  configuredBaseURL?: string;
}

/** opencode's ranking: later entries of this list rank higher, then "latest", then id descending. */
const PRIORITY = ['gpt-5', 'claude-sonnet-4', 'big-pickle', 'gemini-3-pro'];
const SMALL_PRIORITY = ['claude-haiku-4-5', 'claude-haiku-4.5', '3-5-haiku', '3.5-haiku', 'gemini-2.5-flash', 'gpt-5-nano'];

function sortModels<T extends { id: string }>(models: T[]): T[] {
  const rank = (id: string) => PRIORITY.findIndex((p) => id.includes(p));
  return [...models].sort((a, b) => {
    const byPriority = rank(b.id) - rank(a.id);
    if (byPriority !== 0) return byPriority;
    const byLatest = Number(b.id.includes('latest')) - Number(a.id.includes('latest'));
    if (byLatest !== 0) return byLatest;
    return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
  });
}

function modalities(list: string[] | undefined): Modalities {
  const has = (m: string) => (list ?? ['text']).includes(m);
  return { text: has('text'), audio: has('audio'), image: has('image'), video: has('video'), pdf: has('pdf') };
}

function toModelInfo(provider: CatalogProvider, modelID: string, model: CatalogModel, baseURL: string | undefined): ModelInfo {
  const over = model.cost?.context_over_200k;
  return {
    id: modelID,
    providerID: provider.id,
    api: { id: model.id ?? modelID, url: baseURL ?? provider.api ?? '', npm: model.provider?.npm ?? provider.npm ?? OPENAI_COMPATIBLE },
    name: model.name,
    ...(model.family ? { family: model.family } : {}),
    capabilities: {
      temperature: model.temperature,
      reasoning: model.reasoning,
      attachment: model.attachment,
      toolcall: model.tool_call,
      input: modalities(model.modalities?.input),
      output: modalities(model.modalities?.output),
      interleaved: model.interleaved ?? false,
    },
    cost: {
      input: model.cost?.input ?? 0,
      output: model.cost?.output ?? 0,
      cache: { read: model.cost?.cache_read ?? 0, write: model.cost?.cache_write ?? 0 },
      ...(over ? { experimentalOver200K: { input: over.input, output: over.output, cache: { read: over.cache_read ?? 0, write: over.cache_write ?? 0 } } } : {}),
    },
    limit: model.limit,
    status: model.status ?? 'active',
    options: model.options ?? {},
    headers: model.headers ?? {},
    release_date: model.release_date,
    // opencode 1.18 always sends the variants (reasoning efforts and such), `{}` for none.
    variants: model.variants ?? {},
  };
}

function withoutSecrets(options: Record<string, unknown>): Record<string, unknown> {
  const { apiKey: _apiKey, ...rest } = options;
  return rest;
}

/** Closest ids to `wanted` (substring or small edit distance), best first. */
function suggest(wanted: string, candidates: string[]): string[] {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let previous = row[0];
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const current = row[j];
        row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
        previous = current;
      }
    }
    return row[b.length];
  };
  const lower = wanted.toLowerCase();
  return candidates
    .map((c) => ({ c, d: c.toLowerCase().includes(lower) || lower.includes(c.toLowerCase()) ? 0 : distance(lower, c.toLowerCase()) }))
    .filter((x) => x.d <= Math.max(3, Math.floor(wanted.length / 3)))
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, 3)
    .map((x) => x.c);
}

@Injectable()
export class ProviderService {
  constructor(
    private readonly config: ConfigService,
    private readonly auth: AuthStore,
  ) {}

  /** Every provider of the catalog and config (after enabled/disabled), connected or not. */
  async all(instance: Instance): Promise<{ config: Config; states: ProviderState[] }> {
    const config = await this.config.get(instance);
    const stored = await this.auth.all();
    const states: ProviderState[] = [];
    for (const catalog of Object.values(catalogFor(config))) {
      const entry = config.provider?.[catalog.id];
      let source: ProviderInfo['source'] = 'custom';
      let key: string | undefined;
      const envName = catalog.env.find((name) => process.env[name]);
      if (envName) [source, key] = ['env', process.env[envName]];
      const auth: ProviderAuth | undefined = stored[catalog.id];
      if (auth) [source, key] = ['api', AuthStore.keyOf(auth)];
      if (entry) source = 'config';
      if (entry?.options?.apiKey) key = entry.options.apiKey;
      const configuredBaseURL = entry?.options?.baseURL ?? entry?.api;
      const options = withoutSecrets(entry?.options ?? {});
      const models: Record<string, ModelInfo> = {};
      for (const [modelID, model] of Object.entries(catalog.models)) {
        models[modelID] = toModelInfo(catalog, modelID, model, entry?.options?.baseURL);
      }
      states.push({ info: { id: catalog.id, name: catalog.name, source, env: catalog.env, options, models }, catalog, key, configuredBaseURL });
    }
    return { config, states };
  }

  /** `GET /config/providers`: connected providers and the best-ranked model of each. */
  async configProviders(instance: Instance): Promise<ConfigProviders> {
    const states = await this.connectedStates(instance);
    return { providers: states.map((s) => s.info), default: defaults(states.map((s) => s.catalog)) };
  }

  /** `GET /provider`: every provider in both clients' shapes, their default models, and which are connected. */
  async providerList(instance: Instance): Promise<ProviderList> {
    const { states } = await this.all(instance);
    return { all: states.map(listedProvider), default: defaults(states.map((s) => s.catalog)), connected: states.filter(isConnected).map((s) => s.info.id) };
  }

  async resolveModel(instance: Instance, providerID: string, modelID: string): Promise<ResolvedModel> {
    const states = await this.connectedStates(instance);
    const state = states.find((s) => s.info.id === providerID);
    if (!state) throw new ProviderModelNotFoundError(providerID, modelID, suggest(providerID, states.map((s) => s.info.id)));
    const model = state.info.models[modelID];
    if (!model) throw new ProviderModelNotFoundError(providerID, modelID, suggest(modelID, Object.keys(state.info.models)));
    const { baseURL: _baseURL, headers: providerHeaders, ...providerOptions } = state.info.options as Record<string, unknown> & { baseURL?: string; headers?: Record<string, string> };
    let sdk: ProviderSdk = 'openai-compatible';
    if (model.api.npm === '@ai-sdk/anthropic') sdk = 'anthropic';
    else if (model.api.npm === '@ai-sdk/openai' && !state.configuredBaseURL) sdk = 'openai';
    return {
      providerID,
      modelID,
      provider: state.info,
      model,
      sdk,
      apiModelID: model.api.id,
      apiKey: state.key,
      baseURL: state.configuredBaseURL ?? (model.api.url || undefined),
      headers: { ...(providerHeaders ?? {}), ...model.headers },
      options: { ...providerOptions, ...model.options },
    };
  }

  async languageModel(instance: Instance, providerID: string, modelID: string): Promise<LanguageModel> {
    return createLanguageModel(await this.resolveModel(instance, providerID, modelID));
  }

  async defaultModel(instance: Instance): Promise<ModelRef> {
    const config = await this.config.get(instance);
    if (config.model) return parseModel(config.model);
    const states = await this.connectedStates(instance);
    const configured = Object.keys(config.provider ?? {});
    const provider = states.find((s) => configured.length === 0 || configured.includes(s.info.id)) ?? states[0];
    const [model] = provider ? sortModels(Object.values(provider.info.models)) : [];
    if (!provider || !model) {
      throw new BadRequestError('No model is available: set a provider API key (environment or PUT /auth/{providerID}) or configure a provider');
    }
    return { providerID: provider.info.id, modelID: model.id };
  }

  async smallModel(instance: Instance): Promise<ModelRef | undefined> {
    const config = await this.config.get(instance);
    if (config.small_model) return parseModel(config.small_model);
    const main = await this.defaultModel(instance).catch(() => undefined);
    if (!main) return undefined;
    const provider = (await this.connectedStates(instance)).find((s) => s.info.id === main.providerID);
    for (const wanted of SMALL_PRIORITY) {
      const id = Object.keys(provider?.info.models ?? {}).find((m) => m.includes(wanted));
      if (id) return { providerID: main.providerID, modelID: id };
    }
    return undefined;
  }

  /** `GET /api/provider`: the connected providers. */
  async providersV2(instance: Instance): Promise<ProviderV2Info[]> {
    return (await this.connectedStates(instance)).map(providerV2);
  }

  /** `GET /api/model`: every model of the connected providers. */
  async modelsV2(instance: Instance): Promise<ModelV2Info[]> {
    return (await this.connectedStates(instance)).flatMap((state) => Object.values(state.info.models).map((model) => modelV2(state, model)));
  }

  /**
   * `GET /api/integration`: the providers of the shipped catalog (after enabled/disabled) and how
   * each is connected. A provider only config defines is connected by that config, not an integration.
   */
  async integrationsV2(instance: Instance): Promise<IntegrationInfo[]> {
    const [{ states }, stored] = await Promise.all([this.all(instance), this.auth.all()]);
    const shipped = builtInCatalog();
    return states.filter((s) => shipped[s.info.id]).map((s) => integrationV2(s.catalog, stored[s.info.id], process.env));
  }

  /** Store credentials for a provider (`PUT /auth/{providerID}`). */
  setAuth(providerID: string, auth: ProviderAuth): Promise<void> {
    return this.auth.set(providerID, auth);
  }

  private async connectedStates(instance: Instance): Promise<ProviderState[]> {
    return (await this.all(instance)).states.filter(isConnected);
  }
}

/**
 * A provider of `GET /provider` as every client reads it: models.dev's shape, which the seed's
 * `provider.list` declares, with opencode 1.18's `Provider` keys beside it (`source`, `options`, and
 * each model's `providerID`, `api`, `capabilities`, `cost.cache`…). Where both name a key they agree,
 * but for a model's status.
 */
type ListedModel = Omit<ModelInfo, 'status'> & CatalogModel;
type ListedProvider = Omit<CatalogProvider & ProviderInfo, 'models'> & { models: Record<string, ListedModel> };

/** `GET /config/providers`. */
export interface ConfigProviders {
  providers: ProviderInfo[];
  default: Record<string, string>;
}

/** `GET /provider`: each provider in the seed's models.dev shape and 1.18's, with their default models and which are connected. */
export interface ProviderList {
  all: ListedProvider[];
  default: Record<string, string>;
  connected: string[];
}

function listedProvider({ catalog, info }: ProviderState): ListedProvider {
  const models: Record<string, ListedModel> = {};
  for (const [id, model] of Object.entries(info.models)) {
    const listed = catalog.models[id];
    // The seed's status has no `active`: a model without one (1.18's `active`) leaves it out.
    models[id] = { ...listed, ...model, cost: { ...listed.cost, ...model.cost }, status: listed.status };
  }
  return { ...catalog, ...info, models };
}

function isConnected(state: ProviderState): boolean {
  return Boolean(state.key) || Boolean(state.configuredBaseURL);
}

function defaults(providers: CatalogProvider[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const provider of providers) {
    const [best] = sortModels(Object.keys(provider.models).map((id) => ({ id })));
    if (best) result[provider.id] = best.id;
  }
  return result;
}
