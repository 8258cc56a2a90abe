import { errorMessage } from '../api/client';

/**
 * The routing API's 400 says `field.path: message; other.path: message`: split it so each message
 * can sit next to its field. What names no field is kept under '' (shown beside the action).
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!error) return {};
  const message = errorMessage(error);
  const out: Record<string, string> = {};
  for (const part of message.split('; ')) {
    const match = /^([A-Za-z0-9_.[\]-]+): (.+)$/s.exec(part);
    if (match) out[match[1]] = out[match[1]] ? `${out[match[1]]}; ${match[2]}` : match[2];
    else out[''] = out[''] ? `${out['']}; ${part}` : part;
  }
  return out;
}

/** Messages of the fields under `prefix` (e.g. every `config.*`), with the path left of each. */
export function errorsUnder(errors: Record<string, string>, prefix: string): string[] {
  return Object.entries(errors)
    .filter(([field]) => field === prefix || field.startsWith(`${prefix}.`))
    .map(([field, message]) => `${field}: ${message}`);
}
