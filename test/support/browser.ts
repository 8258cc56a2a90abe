import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (apt-get install chromium; .ci/run installs it). */
export const CHROMIUM = process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(__dirname, '..', '..', '.data', 'screenshots');

export function launchChromium(): Promise<Browser> {
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
