import { Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { ConflictError, NotFoundError } from '../../common/errors';
import { documentId } from '../../common/ids';
import { iso, isoTime } from '../documents/document-views';
import { DEFAULT_ORG, MemoryApiKey, MemoryOrganization } from './organization.entity';
import { OrganizationHoldsData, OrganizationRepository } from './organization.repository';
import type { ApiKeyView, CreatedApiKey, OrganizationView } from './dto/organization.dto';

/** Keys Keel issues start with this; one presented with it must be a stored key (see resolveKey). */
const KEY_PREFIX = 'keel_';
const KEY_CHARS = 40;
/** Characters of a key kept to tell keys apart in lists (`keel_` and 8 more). */
const SHOWN_PREFIX = KEY_PREFIX.length + 8;
/** `last_used_at` is written at most this often per key (a busy key would otherwise write at every request). */
const LAST_USED_RESOLUTION_MS = 60_000;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const keyDigest = (key: string): string => createHash('sha256').update(key).digest('hex');

function newKey(): string {
  const bytes = randomBytes(KEY_CHARS * 2);
  let out = '';
  // Rejection sampling keeps every character equally likely.
  for (const b of bytes) if (b < 248 && out.length < KEY_CHARS) out += BASE62[b % 62];
  return out.length === KEY_CHARS ? KEY_PREFIX + out : newKey();
}

/**
 * Organizations and their API keys (`/keel/organizations`, behind the server password). A key is
 * looked up in the database at every memory request (one indexed read), so creating or revoking it
 * applies at once on every replica sharing the database, with no cache to invalidate.
 */
@Injectable()
export class OrganizationsService {
  private readonly logger = new Logger('Organizations');

  constructor(private readonly repository: OrganizationRepository) {}

  /** The organization of a stored key, or undefined when no key has this digest (unknown or revoked). */
  async resolveKey(key: string): Promise<string | undefined> {
    const digest = keyDigest(key);
    const row = await this.repository.keyByDigest(digest);
    if (!row) return undefined;
    const now = Date.now();
    if (row.last_used_at === null || now - Number(row.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      // Bookkeeping: the request does not wait for it, and a failure only delays the next stamp.
      void this.repository.stampKeyUse(row.id, now).catch((error: Error) => this.logger.warn({ msg: 'could not record a key use', key: row.id, error: error.message }));
    }
    return row.org_id;
  }

  async list(): Promise<OrganizationView[]> {
    const rows = await this.repository.list();
    return rows.map((r) => ({ id: r.id, name: r.name, isDefault: r.id === DEFAULT_ORG, keyCount: Number(r.keys), createdAt: isoTime(r.created_at), updatedAt: isoTime(r.updated_at) }));
  }

  private async view(id: string): Promise<OrganizationView> {
    const found = (await this.list()).find((o) => o.id === id);
    if (!found) throw new NotFoundError(`Organization not found: ${id}`);
    return found;
  }

  private async mustExist(id: string): Promise<MemoryOrganization> {
    const org = await this.repository.find(id);
    if (!org) throw new NotFoundError(`Organization not found: ${id}`);
    return org;
  }

  /** `name` as checked at the boundary (OrganizationBody: trimmed, 1 to 100 characters). */
  async create(name: string): Promise<OrganizationView> {
    const now = Date.now();
    const id = `org_${documentId(16)}`;
    await this.repository.insert(Object.assign(new MemoryOrganization(), { id, name, createdAt: now, updatedAt: now }));
    return this.view(id);
  }

  async rename(id: string, name: string): Promise<OrganizationView> {
    await this.mustExist(id);
    await this.repository.rename(id, name, Date.now());
    return this.view(id);
  }

  /**
   * Deletes an organization without data, with its keys, settings and pending webhook deliveries.
   * One holding documents or memories is refused (409): delete them with its keys first. The default
   * organization stays (KEEL_API_KEYS and keyless requests use it).
   */
  async remove(id: string): Promise<void> {
    if (id === DEFAULT_ORG) throw new ConflictError('The default organization cannot be deleted (KEEL_API_KEYS and requests without a key use it)');
    await this.mustExist(id);
    // Revoke its keys first to be sure nothing is in flight.
    await this.repository.removeEmpty(id).catch((error: unknown) => {
      if (!(error instanceof OrganizationHoldsData)) throw error;
      throw new ConflictError(`Organization ${id} still holds data (${error.rows} rows of ${error.table}); delete its documents and memories first`);
    });
  }

  async listKeys(orgId: string): Promise<ApiKeyView[]> {
    await this.mustExist(orgId);
    const rows = await this.repository.keysOf(orgId);
    return rows.map(keyView);
  }

  /** A new key; the answer is the only place the key itself ever appears. */
  async createKey(orgId: string, name: string): Promise<CreatedApiKey> {
    await this.mustExist(orgId);
    const key = newKey();
    const row = Object.assign(new MemoryApiKey(), { id: `key_${documentId(16)}`, orgId, name, prefix: key.slice(0, SHOWN_PREFIX), digest: keyDigest(key), createdAt: Date.now(), lastUsedAt: null });
    await this.repository.insertKey(row);
    return { ...keyView(row), key };
  }

  async revokeKey(orgId: string, keyId: string): Promise<void> {
    await this.mustExist(orgId);
    if (!(await this.repository.deleteKey(orgId, keyId))) throw new NotFoundError(`API key not found: ${keyId}`);
  }
}

function keyView(row: MemoryApiKey): ApiKeyView {
  return { id: row.id, orgId: row.orgId, name: row.name, prefix: row.prefix, createdAt: isoTime(row.createdAt), lastUsedAt: iso(row.lastUsedAt) };
}
