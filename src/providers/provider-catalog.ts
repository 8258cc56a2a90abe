import { readFileSync } from 'node:fs';
import { assetPath } from '../common/assets';
import type { Config, ProviderConfig, ProviderModelConfig } from '../config/config.service';
import { deepMerge, JsonObject } from '../config/deep-merge';

/** A model in models.dev shape (what `/provider` lists in `all`), every required member filled. */
export interface CatalogModel extends ProviderModelConfig {
  id: string;
  name: string;
  release_date: string;
  attachment: boolean;
  reasoning: boolean;
  temperature: boolean;
  tool_call: boolean;
  limit: { context: number; output: number };
  options: Record<string, unknown>;
}

/** A provider in models.dev shape. */
export interface CatalogProvider {
  id: string;
  name: string;
  env: string[];
  npm?: string;
  api?: string;
  models: Record<string, CatalogModel>;
}

/** The package Keel uses for providers that do not name one (config-defined providers). */
export const OPENAI_COMPATIBLE = '@ai-sdk/openai-compatible';

let builtIn: Record<string, CatalogProvider> | undefined;

/** The shipped catalog (`catalog.json`), read once. */
export function builtInCatalog(): Record<string, CatalogProvider> {
  builtIn ??= (JSON.parse(readFileSync(assetPath('providers', 'catalog.json'), 'utf8')) as { providers: Record<string, CatalogProvider> }).providers;
  return builtIn;
}

/** Members a model defined only in config does not state. 0 limits mean "unknown". */
function completeModel(id: string, model: ProviderModelConfig): CatalogModel {
  return {
    ...model,
    id: model.id ?? id,
    name: model.name ?? id,
    release_date: model.release_date ?? '',
    attachment: model.attachment ?? false,
    reasoning: model.reasoning ?? false,
    temperature: model.temperature ?? true,
    tool_call: model.tool_call ?? true,
    cost: model.cost ?? { input: 0, output: 0 },
    limit: model.limit ?? { context: 0, output: 0 },
    options: model.options ?? {},
  };
}

function mergeProvider(id: string, base: CatalogProvider | undefined, config: ProviderConfig): CatalogProvider {
  const models: Record<string, CatalogModel> = { ...(base?.models ?? {}) };
  for (const [modelID, override] of Object.entries(config.models ?? {})) {
    const existing = models[modelID];
    models[modelID] = existing ? (deepMerge(existing as unknown as JsonObject, override as JsonObject) as unknown as CatalogModel) : completeModel(modelID, override);
  }
  for (const modelID of Object.keys(models)) {
    if (config.whitelist && !config.whitelist.includes(modelID)) delete models[modelID];
    else if (config.blacklist?.includes(modelID)) delete models[modelID];
  }
  return {
    id,
    name: config.name ?? base?.name ?? id,
    env: config.env ?? base?.env ?? [],
    npm: config.npm ?? base?.npm ?? OPENAI_COMPATIBLE,
    api: config.api ?? base?.api,
    models,
  };
}

/** Whether `enabled_providers` / `disabled_providers` let a provider through. */
function providerAllowed(config: Config, id: string): boolean {
  if (config.enabled_providers && !config.enabled_providers.includes(id)) return false;
  return !config.disabled_providers?.includes(id);
}

/** The catalog with config `provider` entries merged in (new providers appended), filtered by enabled/disabled. */
export function catalogFor(config: Config): Record<string, CatalogProvider> {
  const result: Record<string, CatalogProvider> = {};
  const catalog = builtInCatalog();
  const ids = [...Object.keys(catalog), ...Object.keys(config.provider ?? {}).filter((id) => !catalog[id])];
  for (const id of ids) {
    if (!providerAllowed(config, id)) continue;
    const entry = config.provider?.[id];
    result[id] = entry ? mergeProvider(id, catalog[id], entry) : catalog[id];
  }
  return result;
}
