/** Operator settings of the sessions module (documented in README "Session server"). */
export interface SessionSettings {
  /** Base of share urls (`<base>/share/<last 8 chars of the session id>`); sharing is refused when unset. */
  shareBaseUrl?: string;
}

export function loadSessionSettings(env: NodeJS.ProcessEnv = process.env): SessionSettings {
  const base = env.KEEL_SHARE_BASE_URL?.trim();
  return { shareBaseUrl: base ? base.replace(/\/+$/, '') : undefined };
}
