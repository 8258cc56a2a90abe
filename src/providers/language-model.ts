import type { LanguageModel } from 'ai';
import { ProviderInitError } from './provider-errors';
import type { ResolvedModel } from './provider.service';

/**
 * The AI SDK model for a resolved model: `@ai-sdk/anthropic` for Anthropic, `@ai-sdk/openai`
 * (Responses API) for OpenAI on its own endpoint, and `@ai-sdk/openai-compatible` (chat
 * completions) for everything else — config providers, any provider given a `baseURL` in config,
 * and catalog providers whose own package Keel does not ship but which serve an OpenAI-compatible API.
 */
export function createLanguageModel(resolved: ResolvedModel): LanguageModel {
  const { apiKey, baseURL, headers, apiModelID, providerID } = resolved;
  // Provider packages load on first use: they cost ~250 ms of start-up a server may never need.
  switch (resolved.sdk) {
    case 'anthropic': {
      const { createAnthropic } = require('@ai-sdk/anthropic') as typeof import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey, baseURL, headers })(apiModelID);
    }
    case 'openai': {
      const { createOpenAI } = require('@ai-sdk/openai') as typeof import('@ai-sdk/openai');
      return createOpenAI({ apiKey, baseURL, headers }).responses(apiModelID);
    }
    case 'openai-compatible': {
      if (!baseURL) throw new ProviderInitError(providerID, `Provider ${providerID} has no endpoint: set provider.${providerID}.options.baseURL in config`);
      const { createOpenAICompatible } = require('@ai-sdk/openai-compatible') as typeof import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({ name: providerID, baseURL, apiKey, headers, includeUsage: true }).chatModel(apiModelID);
    }
  }
}
