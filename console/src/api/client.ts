import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

// Credentials live in sessionStorage only: never in a URL, gone when the tab closes.
const CREDENTIALS_KEY = 'keel.credentials';

export function storedCredentials(): string | null {
  return sessionStorage.getItem(CREDENTIALS_KEY);
}

export function storeCredentials(username: string, password: string): void {
  sessionStorage.setItem(CREDENTIALS_KEY, btoa(`${username}:${password}`));
}

export function clearCredentials(): void {
  sessionStorage.removeItem(CREDENTIALS_KEY);
}

/** Every console request names itself as a script's, so a 401 comes without the browser's Basic dialog. */
export function authHeaders(): Record<string, string> {
  const credentials = storedCredentials();
  const script = { 'X-Requested-With': 'keel-console' };
  return credentials ? { ...script, Authorization: `Basic ${credentials}` } : script;
}

const authorize: Middleware = {
  onRequest({ request }) {
    for (const [name, value] of Object.entries(authHeaders())) request.headers.set(name, value);
    return request;
  },
};

/** One typed client for all of Keel's public API, generated from the committed openapi.json. */
export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(authorize);

/** Whether the server wants credentials: an unauthenticated probe of /global/health answers 401 when it does. */
export async function probeAuth(withCredentials: boolean): Promise<'open' | 'ok' | 'unauthorized'> {
  const headers = authHeaders();
  if (!withCredentials) delete headers.Authorization;
  const response = await fetch('/global/health', { headers });
  if (response.status === 401) return 'unauthorized';
  return withCredentials && storedCredentials() ? 'ok' : 'open';
}

/** The error's words, whatever surface's dialect it came in. */
export function errorMessage(error: unknown): string {
  if (!error) return 'Unknown error';
  if (typeof error === 'string') return error;
  if (typeof error === 'object') {
    const e = error as Record<string, unknown>;
    if (typeof e.message === 'string') return e.message;
    if (typeof e.error === 'string') return e.error;
    // The session dialect: {data, error: [{path, message}], success: false}; NotFoundError: {name, data: {message}}.
    if (Array.isArray(e.error))
      return e.error
        .map((i: { path?: unknown[]; message?: string }) =>
          i.path?.length ? `${i.path.join('.')}: ${i.message}` : i.message,
        )
        .join('; ');
    const data = e.data as { message?: unknown } | undefined;
    if (typeof data?.message === 'string') return data.message;
  }
  return JSON.stringify(error);
}

/** An API error answer, kept whole so a form can put each field's message next to its field. */
export class ApiError extends Error {
  constructor(readonly body: unknown) {
    super(errorMessage(body));
  }
}

/** The answer's data, or its error thrown as an ApiError (what the query cache expects). */
export function unwrap<T>(answer: { data?: T; error?: unknown }): T {
  if (answer.error !== undefined) throw new ApiError(answer.error);
  return answer.data as T;
}
