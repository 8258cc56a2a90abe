import { domainError } from '../common/errors';

/** The reference's 400 for an unknown provider or model: `{name, data:{providerID, modelID, suggestions}}`. */
export class ProviderModelNotFoundError extends domainError(400, 'ProviderModelNotFoundError') {
  constructor(providerID: string, modelID: string, suggestions: string[]) {
    super(`Model not found: ${providerID}/${modelID}`, { providerID, modelID, suggestions });
  }
}

/** A model that cannot be turned into an AI SDK model (no key, no endpoint): a configuration problem. */
export class ProviderInitError extends domainError(400, 'ProviderInitError') {
  constructor(providerID: string, message: string) {
    super(message, { providerID });
  }
}
