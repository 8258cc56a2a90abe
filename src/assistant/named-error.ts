import { aiSdk } from '../providers/ai-sdk';

/** The reference's error objects on AssistantMessage.error and in `session.error`. */
export interface NamedError {
  name: 'ProviderAuthError' | 'UnknownError' | 'MessageOutputLengthError' | 'MessageAbortedError' | 'APIError';
  data: Record<string, unknown>;
}

export function abortedError(message = 'The operation was aborted.'): NamedError {
  return { name: 'MessageAbortedError', data: { message } };
}

/** Maps what a provider call threw onto the reference's named errors. */
export function toNamedError(error: unknown, providerID: string): NamedError {
  if (aiSdk().APICallError.isInstance(error)) {
    if (error.statusCode === 401 || error.statusCode === 403) {
      return { name: 'ProviderAuthError', data: { providerID, message: error.message } };
    }
    return {
      name: 'APIError',
      data: {
        message: error.message,
        ...(error.statusCode !== undefined ? { statusCode: error.statusCode } : {}),
        isRetryable: error.isRetryable,
        ...(error.responseHeaders ? { responseHeaders: error.responseHeaders } : {}),
        ...(error.responseBody ? { responseBody: error.responseBody } : {}),
      },
    };
  }
  if (error instanceof Error && error.name === 'AbortError') return abortedError(error.message);
  return { name: 'UnknownError', data: { message: error instanceof Error ? error.message : String(error) } };
}
