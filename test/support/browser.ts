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

/** A control drawn past the screen's right edge, or cut by an ancestor that hides or scrolls its overflow. */
export interface ClippedControl {
  /** What a person reads on it (its label, text or placeholder). */
  control: string;
  /** Where it is cut: `past the right edge`, or the clipping ancestor (`hidden`/`clip`, or `scrolls`: a wider box scrolled sideways). */
  reason: string;
  /** The clipping ancestor's tag and class, to find it in the page. */
  container?: string;
}

/**
 * Every visible button (and link drawn as one), input, select and textarea that does not fit on the screen:
 * its box reaches past the viewport's right edge, or an ancestor with horizontal overflow other than
 * `visible` cuts it. A control inside a box that scrolls sideways (a table wider than the screen) counts
 * too, even when it happens to be in view: its row's other controls are not.
 */
export function controlsInView(page: Page): Promise<ClippedControl[]> {
  return page.evaluate(() => {
    const selector = [
      'button',
      '[role="button"]',
      'a.mantine-Button-root',
      'a.mantine-ActionIcon-root',
      'input:not([type="hidden"])',
      'select',
      'textarea',
    ].join(',');
    const name = (element: Element): string => {
      const input = element as HTMLInputElement;
      return (
        element.getAttribute('aria-label') ??
        (element.textContent?.trim() || input.placeholder || (input.labels?.[0]?.textContent?.trim() ?? '') || element.tagName.toLowerCase())
      ).slice(0, 60);
    };
    const describe = (element: Element) =>
      `${element.tagName.toLowerCase()}${typeof element.className === 'string' && element.className ? '.' + element.className.trim().split(/\s+/).slice(0, 2).join('.') : ''}`;
    const width = document.documentElement.clientWidth;
    const found: { control: string; reason: string; container?: string }[] = [];
    for (const element of Array.from(document.querySelectorAll(selector))) {
      // Drawn and seen: not display:none, not invisible, not transparent (xterm's helper textarea, a
      // visually hidden native input under Mantine's own box), and not nested in another control.
      if (!element.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
      const box = element.getBoundingClientRect();
      if (box.width < 2 || box.height < 2) continue;
      if (element.parentElement?.closest(selector)) continue;
      if (box.right > width + 0.5) {
        found.push({ control: name(element), reason: `past the right edge (${Math.round(box.right)} > ${width})` });
        continue;
      }
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        const overflow = getComputedStyle(parent).overflowX;
        if (overflow === 'visible') continue;
        const scrolls = (overflow === 'auto' || overflow === 'scroll') && parent.scrollWidth > parent.clientWidth + 1;
        const outer = parent.getBoundingClientRect();
        const left = outer.left + parent.clientLeft;
        const right = left + parent.clientWidth;
        const cut = box.left < left - 0.5 || box.right > right + 0.5;
        if (scrolls || cut) {
          found.push({ control: name(element), reason: scrolls ? 'scrolls' : overflow, container: describe(parent) });
          break;
        }
      }
    }
    return found;
  });
}
