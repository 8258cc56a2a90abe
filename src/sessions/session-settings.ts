/** Operator settings of the sessions module (documented in README "Sharing sessions"). */
export interface SessionSettings {
  /** `KEEL_SHARE=off` refuses sharing; on by default (Keel serves the share pages itself). */
  shareEnabled: boolean;
  /**
   * `KEEL_SHARE_BASE_URL`: base of share urls on an external share host (`<base>/share/<shareID>`),
   * instead of this server's public address. That host must serve (or proxy) `/share/<shareID>`.
   */
  shareBaseUrl?: string;
}

export function loadSessionSettings(env: NodeJS.ProcessEnv): SessionSettings {
  const base = env.KEEL_SHARE_BASE_URL?.trim();
  const share = (env.KEEL_SHARE ?? 'on').trim().toLowerCase();
  if (!['on', 'off', 'true', 'false'].includes(share)) throw new Error(`KEEL_SHARE must be "on" or "off", got "${env.KEEL_SHARE}"`);
  return { shareEnabled: share === 'on' || share === 'true', shareBaseUrl: base ? base.replace(/\/+$/, '') : undefined };
}
