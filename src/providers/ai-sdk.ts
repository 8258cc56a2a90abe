/**
 * The AI SDK (`ai`, with zod behind it), loaded on the first model call instead of at start-up,
 * where it would cost about a tenth of the time to healthy. Node caches the module, so every
 * call after the first is a map lookup.
 */
export function aiSdk(): typeof import('ai') {
  return require('ai') as typeof import('ai');
}
