/**
 * The AI SDK (`ai`, with zod behind it), loaded on the first model call instead of at start-up,
 * where it would cost about a tenth of the time to healthy. Node caches the module, so every
 * call after the first is a map lookup.
 */
export function aiSdk(): typeof import('ai') {
  return require('ai') as typeof import('ai');
}

/** zod, loaded when a tool's parameters or a structured answer's schema are first needed (about 100 modules and 10 MB of a server that may never run a prompt). */
export function zod(): typeof import('zod') {
  return require('zod') as typeof import('zod');
}
