import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/**
 * The console signs in once (POST /keel/login) and holds an HttpOnly session cookie that every tab
 * shares: no password is kept in the page, in storage or in a URL. Requests send it by themselves
 * (same origin); they only name themselves as a script's, so a 401 comes without the browser's Basic dialog.
 */
export function authHeaders(): Record<string, string> {
  return { 'X-Requested-With': 'keel-console' };
}

/** Fired when an API request answers 401: the sign-in ended (expiry, sign-out in another tab). */
export const signedOutEvents = new EventTarget();

const authorize: Middleware = {
  onRequest({ request }) {
    for (const [name, value] of Object.entries(authHeaders())) request.headers.set(name, value);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401 && !new URL(response.url).pathname.startsWith('/v')) signedOutEvents.dispatchEvent(new Event('signed-out'));
    return response;
  },
};

/** One typed client for all of Keel's public API, generated from the committed openapi.json. */
export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(authorize);

interface AuthState {
  passwordRequired: boolean;
  signedIn: boolean;
}

/** Whether the server wants a password and whether this browser is signed in (GET /keel/auth never answers 401). */
export async function authState(): Promise<AuthState> {
  const response = await fetch('/keel/auth', { headers: authHeaders() });
  if (!response.ok) throw new Error(`GET /keel/auth answered ${response.status}`);
  return (await response.json()) as AuthState;
}

/**
 * Sign in with the server password: the server sets the session cookie. `retryAfter`: too many failed
 * sign-ins from this address, seconds until the next may be tried.
 */
export async function signIn(
  username: string,
  password: string,
): Promise<'ok' | 'wrong' | 'unreachable' | { retryAfter: number }> {
  const response = await fetch('/keel/login', {
    method: 'POST',
    headers: { ...authHeaders(), 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  }).catch(() => undefined);
  if (!response) return 'unreachable';
  if (response.status === 401) return 'wrong';
  if (response.status === 429) return { retryAfter: Number(response.headers.get('Retry-After')) || 60 };
  return response.ok ? 'ok' : 'unreachable';
}

/** End the sign-in (every tab's: they share the cookie). */
export async function signOut(): Promise<void> {
  await fetch('/keel/logout', { method: 'POST', headers: authHeaders() }).catch(() => undefined);
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
