import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKeelApp } from '../app';
import { loadSettings } from '../common/settings';
import { buildOpenApiDocument } from './document';

/**
 * `npm run openapi` writes openapi.json at the repository root; `--check` fails when the
 * committed file differs from what the code generates.
 */
async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const dataDir = mkdtempSync(join(tmpdir(), 'keel-openapi-'));
  try {
    const keel = await createKeelApp(loadSettings({ KEEL_DATA_DIR: dataDir, KEEL_LOG_LEVEL: 'error', KEEL_PORT: '0' }, []));
    const text = `${JSON.stringify(buildOpenApiDocument(keel.app), null, 2)}\n`;
    await keel.app.close();
    const file = join(__dirname, '..', '..', 'openapi.json');
    if (check) {
      const committed = readFileSync(file, 'utf8');
      if (committed !== text) {
        process.stderr.write('openapi.json is out of date: run `npm run build && npm run openapi` and commit it\n');
        process.exit(1);
      }
      process.stdout.write('openapi.json matches the code\n');
    } else {
      writeFileSync(file, text);
      process.stdout.write(`wrote ${file}\n`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
