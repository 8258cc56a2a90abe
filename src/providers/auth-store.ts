import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';

/** The reference `Auth` body of `PUT /auth/{providerID}`. */
export type ProviderAuth =
  | { type: 'api'; key: string }
  | { type: 'oauth'; refresh: string; access: string; expires: number; enterpriseUrl?: string }
  | { type: 'wellknown'; key: string; token: string };

/**
 * Provider credentials, as opencode keeps them: one JSON file (`<data dir>/auth.json`) readable by
 * the owner only (0600, written atomically). Values are never logged nor returned by any route.
 */
@Injectable()
export class AuthStore {
  private entries?: Promise<Record<string, ProviderAuth>>;
  private writing: Promise<void> = Promise.resolve();

  constructor(@Inject(KEEL_SETTINGS) private readonly settings: KeelSettings) {}

  get file(): string {
    return join(this.settings.dataDir, 'auth.json');
  }

  all(): Promise<Record<string, ProviderAuth>> {
    this.entries ??= readFile(this.file, 'utf8')
      .then((text) => JSON.parse(text) as Record<string, ProviderAuth>)
      .catch(() => ({}));
    return this.entries;
  }

  /** The secret an AI SDK provider takes as its API key. */
  static keyOf(auth: ProviderAuth): string {
    if (auth.type === 'api') return auth.key;
    if (auth.type === 'oauth') return auth.access;
    return auth.token;
  }

  /** Store (replace) one provider's credentials; writes are serialised. */
  set(providerID: string, auth: ProviderAuth): Promise<void> {
    const write = this.writing.then(async () => {
      const next = { ...(await this.all()), [providerID]: auth };
      await mkdir(this.settings.dataDir, { recursive: true });
      const temp = `${this.file}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temp, JSON.stringify(next, null, 2), { mode: 0o600 });
      await chmod(temp, 0o600);
      await rename(temp, this.file);
      this.entries = Promise.resolve(next);
    });
    this.writing = write.catch(() => undefined);
    return write;
  }
}
