import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startKeel, tempDir, TestKeel } from './keel';
import { ScriptedProvider } from './scripted-provider';
import { SseClient } from './sse';

export interface AssistantHarness {
  scripted: ScriptedProvider;
  dir: string;
  keel: TestKeel;
  client: ReturnType<typeof createOpencodeClient>;
  /** The directory's `/event` stream, open from the start. */
  events: SseClient;
  close(): Promise<void>;
}

/**
 * A scripted model server, a project directory whose `opencode.json` points at it (plus `config`
 * and `files`), Keel, an SDK client for that directory and its event stream.
 */
export async function startAssistantHarness(options: {
  prefix: string;
  config?: Record<string, unknown>;
  files?: Record<string, string>;
  env?: Record<string, string>;
}): Promise<AssistantHarness> {
  const scripted = await ScriptedProvider.start();
  const dir = tempDir(options.prefix);
  writeFileSync(join(dir, 'opencode.json'), JSON.stringify({ ...scripted.config(), ...options.config }));
  for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), content);
  const keel = await startKeel({ env: options.env });
  const client = createOpencodeClient({ baseUrl: keel.url, directory: dir });
  const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
  return {
    scripted,
    dir,
    keel,
    client,
    events,
    close: async () => {
      events.close();
      await keel.close();
      await scripted.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
