/** Operator settings of the assistant loop (documented in the README's Assistant section). */
export interface AssistantSettings {
  /** Attempts after the first for retryable provider errors (429, 5xx, overloaded). */
  maxRetries: number;
  /** Model steps of one turn before the loop stops (a guard against endless tool loops). */
  maxSteps: number;
}

export function loadAssistantSettings(env: NodeJS.ProcessEnv): AssistantSettings {
  const int = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${env[name]}"`);
    return value;
  };
  return { maxRetries: int('KEEL_PROMPT_MAX_RETRIES', 5), maxSteps: int('KEEL_PROMPT_MAX_STEPS', 100) };
}
