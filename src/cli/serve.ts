import { createKeelApp, listen } from '../app';
import type { KeelSettings } from '../common/settings';
import { settleAfterStart } from '../common/young-generation';

/** `keel serve`: the server, until SIGTERM or SIGINT. */
export async function serve(settings: KeelSettings): Promise<void> {
  const keel = await createKeelApp(settings);
  keel.app.enableShutdownHooks();
  // A request that never ends must not keep a stopping server alive.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => setTimeout(() => process.exit(1), 15_000).unref());
  }
  const url = await listen(keel, settings.host, settings.port);
  if (!settings.serverPassword) {
    keel.logger.warn('KEEL_SERVER_PASSWORD is not set; server is unsecured (loopback only).', 'Bootstrap');
  }
  if (settings.apiKeys.length === 0) {
    keel.logger.warn('KEEL_API_KEYS is not set; the memory API (/v3, /v4) needs no key (loopback only).', 'Bootstrap');
  }
  // The exact line the official SDK's createOpencodeServer() waits for.
  process.stdout.write(`opencode server listening on ${url}\n`);
  settleAfterStart();
}
