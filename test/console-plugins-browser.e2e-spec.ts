import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { parse } from 'yaml';
import {
  collectConsoleErrors,
  launchChromium,
  seriousAccessibilityViolations,
  step,
} from './support/browser';
import { startKeel, tempDir, TestKeel } from './support/keel';

const STATIC_CONFIG = `# Traefik static configuration
entryPoints:
  web:
    address: ":80" # plain HTTP
`;

/** Where the screenshots a person looks at go (KEEL_SCREENSHOTS), when set. */
async function keepScreenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.KEEL_SCREENSHOTS;
  if (folder)
    await page.screenshot({ path: join(folder, `${name}.png`), fullPage: page.viewportSize()!.width > 600 });
}

// The built console's Plugin Hub in a real Chromium against a real Keel (offline: the bundled catalogue).
describe('Console: Plugin Hub in a browser', () => {
  let browser: Browser;
  let keel: TestKeel;
  let file: string;

  beforeAll(async () => {
    browser = await launchChromium();
    keel = await startKeel();
    file = join(tempDir('keel-traefik-'), 'traefik.yml');
    writeFileSync(file, STATIC_CONFIG);
  });
  afterAll(async () => {
    await browser.close();
    await keel.close();
  });

  it('sets the file, installs and removes a plugin (the file follows), shows errors next to their action, with no console error and no serious accessibility violation', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = collectConsoleErrors(page);
    const geoblock = page.locator('article', { has: page.getByRole('heading', { name: 'GeoBlock' }) });

    await step(page, 'plugins-open', async () => {
      await page.goto(keel.url + '/ui/routing/plugins');
      await page.getByRole('heading', { name: 'Plugin Hub' }).waitFor();
      await page.getByText(/^12 of 12 plugins \(catalogue bundled with Keel\)$/).waitFor();
      await page.getByText('No file is set yet').waitFor();
      // Install waits for the file, and says so.
      expect(await geoblock.getByRole('button', { name: 'Install GeoBlock' }).isDisabled()).toBe(true);
      await page
        .getByText('Install is off until the Traefik static configuration file is set above')
        .waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await keepScreenshot(page, 'plugins-desktop-light');
    });

    await step(page, 'plugins-path-refused', async () => {
      await page.getByRole('textbox', { name: 'Static configuration file' }).fill('/etc/traefik/traefik.yml');
      await page.getByRole('button', { name: 'Save path' }).click();
      await page.getByText('This file is outside the directories this server may use').waitFor();
      await page.getByText(/decided by KEEL_ALLOWED_DIRECTORIES/).waitFor();
      await keepScreenshot(page, 'plugins-path-error-desktop-light');
    });

    await step(page, 'plugins-path-saved', async () => {
      await page.getByRole('textbox', { name: 'Static configuration file' }).fill(file);
      await page.getByRole('button', { name: 'Save path' }).click();
      await page.getByRole('status').getByText(`Traefik static configuration path set to ${file}`).waitFor();
    });

    await step(page, 'plugins-search', async () => {
      await page.getByRole('textbox', { name: 'Search plugins' }).fill('geo');
      await page.getByText(/^1 of 12 plugins/).waitFor();
    });

    await step(page, 'plugins-bad-version', async () => {
      await geoblock.getByRole('textbox', { name: 'Version' }).fill('latest');
      await geoblock.getByRole('button', { name: 'Install GeoBlock' }).click();
      await geoblock
        .getByRole('alert')
        .getByText('Version: must be a module version such as v1.2.3')
        .waitFor();
      expect(readFileSync(file, 'utf8')).toBe(STATIC_CONFIG);
      await keepScreenshot(page, 'plugins-errors-desktop-light');
    });

    await step(page, 'plugins-install', async () => {
      await geoblock.getByRole('textbox', { name: 'Version' }).fill('v0.3.2');
      await geoblock.getByRole('button', { name: 'Install GeoBlock' }).click();
      await geoblock.getByText('Installed v0.3.2').waitFor();
      await geoblock.getByText('A Traefik restart is required to load the plugin.').waitFor();
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('# plain HTTP');
      expect(parse(text).experimental.plugins).toEqual({
        geoblock: { moduleName: 'github.com/PascalMinder/geoblock', version: 'v0.3.2' },
      });
      await page.getByRole('textbox', { name: 'Search plugins' }).fill('');
      await page.getByRole('radio', { name: 'Installed (1)' }).waitFor({ state: 'attached' });
      // Remove takes Install's place under the pointer: its hovered tint is what a person sees.
      await geoblock.getByRole('button', { name: 'Remove GeoBlock' }).hover();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await keepScreenshot(page, 'plugins-installed-desktop-light');
    });

    await step(page, 'plugins-remove', async () => {
      await geoblock.getByRole('button', { name: 'Remove GeoBlock' }).click();
      await geoblock.getByRole('button', { name: 'Install GeoBlock' }).waitFor();
      expect(parse(readFileSync(file, 'utf8'))).toEqual(parse(STATIC_CONFIG));
    });

    await step(page, 'plugins-dark-narrow', async () => {
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.setViewportSize({ width: 360, height: 800 });
      await page.reload();
      await page.getByText(/^12 of 12 plugins/).waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await keepScreenshot(page, 'plugins-360-dark');
    });

    // The two refusals above are the only failed requests: each was shown next to its action.
    const expected = (e: string) =>
      /^400 .*\/api\/plugins\/(configpath|install)$/.test(e) ||
      e === 'Failed to load resource: the server responded with a status of 400 (Bad Request)';
    expect(errors.filter((e) => !expected(e))).toEqual([]);
    expect(errors.filter((e) => e.startsWith('400 '))).toHaveLength(2);
    await page.close();
  });
});
