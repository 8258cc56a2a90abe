import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (apt-get install chromium; .ci/run installs it). */
export const CHROMIUM = process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(__dirname, '..', '..', '.data', 'screenshots');

/** Debian's Chromium, headless; `extraArgs` add flags (e.g. `--host-resolver-rules`). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

/** Run one step; when it fails, keep a screenshot named after it before rethrowing. */
export async function step<T>(page: Page, name: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page
      .screenshot({ path: join(SCREENSHOTS, `${name.replace(/[^a-z0-9-]+/gi, '-')}.png`), fullPage: true })
      .catch(() => undefined);
    throw error;
  }
}

/** Console errors the page logged: every page must load with none. */
export function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
  });
  return errors;
}

/** axe-core's serious and critical violations on the current page. */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated, not added as a <script>: the console's Content-Security-Policy refuses inline scripts.
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations: { id: string; impact: string; help: string }[] = await page.evaluate(async () => {
    // The page as it settles: colours read mid-transition (a button leaving its disabled grey) are
    // neither the old nor the new ones, and contrast checks on them fail at random. (Endless
    // animations, such as a loader's spin, are not waited for.)
    const ending = document
      .getAnimations()
      .filter((animation) => Number.isFinite(Number(animation.effect?.getComputedTiming().endTime)));
    await Promise.all(ending.map((animation) => animation.finished.catch(() => undefined)));
    const result = await (window as any).axe.run(document);
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: `${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).join(', ')})`,
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help}`);
}

/** A full-page screenshot kept in SCREENSHOTS as `name`.png. */
export async function keepFullScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** A page at 1440 light and 390 dark, kept as screenshots; nothing wider than the screen. */
export async function atBothWidths(browser: Browser, url: string, name: string, ready: (page: Page) => Promise<void>): Promise<void> {
  for (const [viewport, colorScheme, suffix] of [
    [{ width: 1440, height: 900 }, 'light', '1440-light'],
    [{ width: 390, height: 844 }, 'dark', '390-dark'],
  ] as const) {
    const context = await browser.newContext({ viewport, colorScheme });
    const page = await context.newPage();
    await step(page, `${name}-${suffix}`, async () => {
      await page.goto(url);
      await ready(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect({ name, suffix, overflow }).toEqual({ name, suffix, overflow: 0 });
      await keepFullScreenshot(page, `${name}-${suffix}`);
    });
    await context.close();
  }
}
