/** Operator settings of terminals, read from the environment (documented in the README). */
export interface PtySettings {
  /** Bytes of output kept while no client is attached, replayed to the next one. */
  replayBytes: number;
  /** Bytes a WebSocket client may have unsent before the terminal pauses its output for it. */
  clientHighWaterBytes: number;
  /** How long a client may stay over the high-water mark before it is disconnected. */
  slowClientGraceMs: number;
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${text}"`);
  return value;
}

export function loadPtySettings(env: NodeJS.ProcessEnv): PtySettings {
  return {
    replayBytes: positiveInteger(env, 'KEEL_PTY_REPLAY_BYTES', 1024 * 1024),
    clientHighWaterBytes: positiveInteger(env, 'KEEL_PTY_CLIENT_HIGH_WATER', 1024 * 1024),
    slowClientGraceMs: positiveInteger(env, 'KEEL_PTY_SLOW_CLIENT_GRACE_MS', 5_000),
  };
}
