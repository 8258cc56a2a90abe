import type { PermissionResponse } from './permission.entity';

/** What happens to requests nobody answers (reference issue #16367: headless servers hang). */
export interface PermissionSettings {
  /** Milliseconds to wait for a reply; undefined = wait forever (the reference's behaviour). */
  timeoutMs?: number;
  /** The answer given when the timeout passes. */
  defaultResponse: PermissionResponse;
}

const RESPONSES: PermissionResponse[] = ['once', 'always', 'reject'];

export function loadPermissionSettings(env: NodeJS.ProcessEnv): PermissionSettings {
  const timeoutText = env.KEEL_PERMISSION_TIMEOUT_MS?.trim();
  const timeoutMs = timeoutText ? Number(timeoutText) : undefined;
  if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs < 0)) {
    throw new Error(`KEEL_PERMISSION_TIMEOUT_MS must be a number of milliseconds >= 0, got "${timeoutText}"`);
  }
  const defaultResponse = (env.KEEL_PERMISSION_DEFAULT?.trim() || 'reject') as PermissionResponse;
  if (!RESPONSES.includes(defaultResponse)) {
    throw new Error(`KEEL_PERMISSION_DEFAULT must be one of ${RESPONSES.join(', ')}, got "${defaultResponse}"`);
  }
  return { timeoutMs, defaultResponse };
}
