import { ApiError, errorMessage } from '../api/client';
import { storedApiKey } from '../api/memoryApiKey';

/** `{error, details}` of the memory surface, as one line a form can show. */
export function memoryErrorText(error: unknown): string {
  const body = error instanceof ApiError ? error.body : error;
  if (body && typeof body === 'object') {
    const e = body as { error?: unknown; details?: unknown };
    if (typeof e.details === 'string' && e.details)
      return `${typeof e.error === 'string' ? e.error : 'Error'}: ${e.details}`;
  }
  return errorMessage(body);
}

/** A request as a `curl` command line, with the key shown as a variable rather than its value. */
export function curlCommand(path: string, body: unknown): string {
  const key = storedApiKey() ? ` \\\n  -H "x-api-key: $KEEL_API_KEY"` : '';
  const json = JSON.stringify(body, null, 2).replace(/'/g, `'\\''`);
  return `curl -X POST '${window.location.origin}${path}' \\\n  -H 'content-type: application/json'${key} \\\n  -d '${json}'`;
}

/** The same request with the supermemory SDK. */
export function sdkCommand(method: 'search.documents' | 'search', body: unknown): string {
  return `import Supermemory from 'supermemory';\n\nconst client = new Supermemory({ apiKey: process.env.KEEL_API_KEY, baseURL: '${window.location.origin}' });\nconst answer = await client.${method}(${JSON.stringify(body, null, 2)});`;
}
