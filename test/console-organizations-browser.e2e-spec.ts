import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { collectConsoleErrors, launchChromium, SCREENSHOTS, seriousAccessibilityViolations, step } from './support/browser';
import { startKeel, TestKeel } from './support/keel';

const PASSWORD = 'console-secret';

/** Screenshots to look at: 1440 px light and 390 px dark (in .data/screenshots, or KEEL_CONSOLE_SHOTS). */
async function shoot(page: Page, name: string): Promise<void> {
  const folder = process.env.KEEL_CONSOLE_SHOTS ?? SCREENSHOTS;
  mkdirSync(folder, { recursive: true });
  for (const [scheme, width] of [
    ['light', 1440],
    ['dark', 390],
  ] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(folder, `${name}-${width}-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

const v3List = (keel: TestKeel, key: string) =>
  fetch(`${keel.url}/v3/documents/list`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: '{}' });

describe('Console: API keys page in a browser', () => {
  let browser: Browser;
  let keel: TestKeel;
  beforeAll(async () => {
    browser = await launchChromium();
    keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD, KEEL_API_KEYS: 'env-key' } });
  });
  afterAll(async () => {
    await browser?.close();
    await keel?.close();
  });

  it('creates an organization and a key shown once, which works on /v3 until it is revoked on the page', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    let errors: string[] = [];
    await step(page, 'keys-sign-in', async () => {
      await page.goto(keel.url + '/ui/keys');
      await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
      await page.getByRole('region', { name: 'Organization Default' }).waitFor();
      await page.getByRole('link', { name: 'API keys' }).waitFor();
    });
    // From here on (the sign-in page's probe answers 401 by design), every request succeeds.
    errors = collectConsoleErrors(page);

    let key = '';
    await step(page, 'keys-create', async () => {
      await page.getByRole('textbox', { name: 'New organization' }).fill('Team Console');
      await page.getByRole('button', { name: 'Create organization' }).click();
      const org = page.getByRole('region', { name: 'Organization Team Console' });
      await org.waitFor();
      await org.getByRole('textbox', { name: 'New key' }).fill('console test');
      await org.getByRole('button', { name: 'Create key' }).click();
      await page.locator('.mantine-Notification-root').filter({ hasText: 'Key “console test” created' }).waitFor();
      key = (await org.getByTestId('created-key').textContent()) ?? '';
      expect(key).toMatch(/^keel_[A-Za-z0-9]{40}$/);
      await org.getByRole('table', { name: 'Keys of Team Console' }).getByText('console test').waitFor();
      await org.getByRole('table').getByText(`${key.slice(0, 13)}…`).waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    });
    await shoot(page, 'api-keys-created');

    await step(page, 'keys-open-in-memory', async () => {
      // One document in the default organization, one in Team Console: the Memory pages opened with the new key show only the latter.
      for (const [apiKey, content] of [
        ['env-key', 'Written in the default organization.'],
        [key, 'Written by Team Console.'],
      ]) {
        const added = await fetch(`${keel.url}/v3/documents`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify({ content }) });
        expect(added.status).toBe(200);
      }
      await page.getByRole('button', { name: 'Open in Memory' }).click();
      await page.getByText('1 document', { exact: true }).waitFor();
      await page.getByText('Written by Team Console.').first().waitFor();
      expect(await page.getByText('Written in the default organization.').count()).toBe(0);
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
    });

    await step(page, 'keys-use', async () => {
      expect((await v3List(keel, key)).status).toBe(200);
      // The use is recorded beside the request: wait for it before reloading.
      const admin = { authorization: `Basic ${Buffer.from(`opencode:${PASSWORD}`).toString('base64')}` };
      for (let tries = 0; ; tries++) {
        const orgs = (await (await fetch(`${keel.url}/keel/organizations`, { headers: admin })).json()) as { id: string; name: string }[];
        const id = orgs.find((o) => o.name === 'Team Console')!.id;
        const keys = (await (await fetch(`${keel.url}/keel/organizations/${id}/keys`, { headers: admin })).json()) as { lastUsedAt: string | null }[];
        if (keys[0].lastUsedAt) break;
        if (tries > 100) throw new Error('lastUsedAt was not recorded');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The key is not shown again: after a reload only its prefix is, with its last use.
      await page.reload();
      const org = page.getByRole('region', { name: 'Organization Team Console' });
      await org.getByRole('table').waitFor();
      expect(await page.getByTestId('created-key').count()).toBe(0);
      expect(await page.content()).not.toContain(key);
      const row = org.getByRole('row', { name: /console test/ });
      await row.waitFor();
      expect(await row.getByText('never').count()).toBe(0);
    });
    await shoot(page, 'api-keys-list');

    await step(page, 'keys-phone', async () => {
      // At 390 px each key is a card whose Revoke is whole: inside the screen and inside its organization's card.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.emulateMedia({ colorScheme: 'dark' });
      const org = page.getByRole('region', { name: 'Organization Team Console' });
      await org.getByRole('list', { name: 'Keys of Team Console' }).getByRole('listitem', { name: 'console test' }).waitFor();
      expect(await org.getByRole('table').count()).toBe(0);
      const revoke = org.getByRole('button', { name: 'Revoke' });
      await revoke.scrollIntoViewIfNeeded();
      const button = await revoke.boundingBox();
      const card = await org.boundingBox();
      if (!button || !card) throw new Error('no Revoke button or no organization card on screen');
      expect(button.x).toBeGreaterThanOrEqual(0);
      expect(button.x + button.width).toBeLessThanOrEqual(390);
      expect(button.x).toBeGreaterThanOrEqual(card.x);
      expect(button.x + button.width).toBeLessThanOrEqual(card.x + card.width);
      expect(button.y).toBeGreaterThanOrEqual(card.y);
      expect(button.y + button.height).toBeLessThanOrEqual(card.y + card.height);

      // A key created on a phone: the notification comes at the top and leaves the new key's box readable.
      await org.getByRole('textbox', { name: 'New key' }).fill('phone key');
      await org.getByRole('button', { name: 'Create key' }).click();
      const note = page.locator('.mantine-Notification-root').filter({ hasText: 'Key “phone key” created' });
      await note.waitFor();
      const created = org.getByTestId('created-key');
      await created.waitFor();
      await page.waitForTimeout(400); // the notification's entrance and the scroll to the key
      const noteBox = await note.boundingBox();
      const keyBox = await created.boundingBox();
      if (!noteBox || !keyBox) throw new Error('no notification or no new key on screen');
      expect(keyBox.y).toBeGreaterThanOrEqual(0);
      expect(keyBox.y + keyBox.height).toBeLessThanOrEqual(844);
      const overlaps = noteBox.y < keyBox.y + keyBox.height && keyBox.y < noteBox.y + noteBox.height;
      expect({ notification: noteBox, key: keyBox, overlaps }).toEqual({ notification: noteBox, key: keyBox, overlaps: false });
      await page.screenshot({ path: join(process.env.KEEL_CONSOLE_SHOTS ?? SCREENSHOTS, 'api-keys-created-phone-390-dark.png') });
      // Revoke the phone key again, so the page is as the next step expects.
      await org.getByRole('listitem', { name: 'phone key' }).getByRole('button', { name: 'Revoke' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke “phone key”?' });
      await dialog.getByRole('button', { name: 'Revoke key' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Dismiss the new key' }).click();
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1440, height: 900 });
    });

    await step(page, 'keys-revoke', async () => {
      const org = page.getByRole('region', { name: 'Organization Team Console' });
      await org.getByRole('button', { name: 'Revoke' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke “console test”?' });
      await dialog.waitFor();
      await shoot(page, 'api-keys-revoke');
      await dialog.getByRole('button', { name: 'Revoke key' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.locator('.mantine-Notification-root').filter({ hasText: 'Key “console test” revoked' }).waitFor();
      await org.getByText('No keys yet.').waitFor();
      expect((await v3List(keel, key)).status).toBe(401);
    });
    expect(errors).toEqual([]);
    await page.close();
  });
});
