import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import { Repository } from 'typeorm';
import { ConflictError, NotFoundError } from '../../common/errors';
import { documentId } from '../../common/ids';
import { IngestionStore } from '../store';
import { DEFAULT_ORG, MemoryApiKey, MemoryOrganization } from './organization.entity';

/** Keys Keel issues start with this; one presented with it must be a stored key (see resolveKey). */
export const KEY_PREFIX = 'keel_';
const KEY_CHARS = 40;
/** Characters of a key kept to tell keys apart in lists (`keel_` and 8 more). */
const SHOWN_PREFIX = KEY_PREFIX.length + 8;
/** `last_used_at` is written at most this often per key (a busy key would otherwise write at every request). */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Tables whose rows make an organization hold data (deleting it is refused while any is left). */
const DATA_TABLES = ['memory_document', 'memory_entry'] as const;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

export const keyDigest = (key: string): string => createHash('sha256').update(key).digest('hex');

function newKey(): string {
  const bytes = randomBytes(KEY_CHARS * 2);
  let out = '';
  // Rejection sampling keeps every character equally likely.
  for (const b of bytes) if (b < 248 && out.length < KEY_CHARS) out += BASE62[b % 62];
  return out.length === KEY_CHARS ? KEY_PREFIX + out : newKey();
}

export interface OrganizationView {
  id: string;
  name: string;
  isDefault: boolean;
  keyCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyView {
  id: string;
  orgId: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/**
 * Organizations and their API keys (`/keel/organizations`, behind the server password). A key is
 * looked up in the database at every memory request (one indexed read), so creating or revoking it
 * applies at once on every replica sharing the database, with no cache to invalidate.
 */
@Injectable()
export class OrganizationsService {
  private readonly logger = new Logger('Organizations');

  constructor(
    private readonly store: IngestionStore,
    @InjectRepository(MemoryOrganization) private readonly organizations: Repository<MemoryOrganization>,
    @InjectRepository(MemoryApiKey) private readonly keys: Repository<MemoryApiKey>,
  ) {}

  /** The organization of a stored key, or undefined when no key has this digest (unknown or revoked). */
  async resolveKey(key: string): Promise<string | undefined> {
    const digest = keyDigest(key);
    const [row] = await this.store.query<{ id: string; org_id: string; last_used_at: number | string | null }>('SELECT id, org_id, last_used_at FROM memory_api_key WHERE digest = ?', [digest]);
    if (!row) return undefined;
    const now = Date.now();
    if (row.last_used_at === null || now - Number(row.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      // Bookkeeping: the request does not wait for it, and a failure only delays the next stamp.
      void this.store.transaction((q) => q('UPDATE memory_api_key SET last_used_at = ? WHERE id = ?', [now, row.id]), { relaxed: true }).catch((error: Error) => this.logger.warn({ msg: 'could not record a key use', key: row.id, error: error.message }));
    }
    return row.org_id;
  }

  async list(): Promise<OrganizationView[]> {
    const rows = await this.store.query<{ id: string; name: string; created_at: number | string; updated_at: number | string; keys: number | string }>(
      `SELECT o.id, o.name, o.created_at, o.updated_at, (SELECT COUNT(*) FROM memory_api_key k WHERE k.org_id = o.id) AS keys
       FROM memory_organization o ORDER BY o.created_at ASC, o.id ASC`,
    );
    return rows.map((r) => ({ id: r.id, name: r.name, isDefault: r.id === DEFAULT_ORG, keyCount: Number(r.keys), createdAt: iso(Number(r.created_at))!, updatedAt: iso(Number(r.updated_at))! }));
  }

  private async view(id: string): Promise<OrganizationView> {
    const found = (await this.list()).find((o) => o.id === id);
    if (!found) throw new NotFoundError(`Organization not found: ${id}`);
    return found;
  }

  private async mustExist(id: string): Promise<MemoryOrganization> {
    const org = await this.organizations.findOneBy({ id });
    if (!org) throw new NotFoundError(`Organization not found: ${id}`);
    return org;
  }

  /** `name` as checked at the boundary (OrganizationBody: trimmed, 1 to 100 characters). */
  async create(name: string): Promise<OrganizationView> {
    const now = Date.now();
    const id = `org_${documentId(16)}`;
    await this.organizations.insert({ id, name, createdAt: now, updatedAt: now });
    return this.view(id);
  }

  async rename(id: string, name: string): Promise<OrganizationView> {
    await this.mustExist(id);
    await this.organizations.update({ id }, { name, updatedAt: Date.now() });
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
    await this.store.transaction(async (q) => {
      // Keys go in the same transaction (and come back if the deletion is refused): once it commits, no
      // request can add data to the organization. Revoke its keys first to be sure nothing is in flight.
      await q(`SELECT id FROM memory_organization WHERE id = ?${this.store.forUpdate}`, [id]);
      await q('DELETE FROM memory_api_key WHERE org_id = ?', [id]);
      for (const table of DATA_TABLES) {
        const [{ n }] = await q<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table} WHERE org_id = ?`, [id]);
        if (Number(n) > 0) throw new ConflictError(`Organization ${id} still holds data (${n} rows of ${table}); delete its documents and memories first`);
      }
      await q('DELETE FROM organization_settings WHERE org_id = ?', [id]);
      await q('DELETE FROM memory_webhook_delivery WHERE org_id = ?', [id]);
      await q('DELETE FROM memory_organization WHERE id = ?', [id]);
    });
  }

  async listKeys(orgId: string): Promise<ApiKeyView[]> {
    await this.mustExist(orgId);
    const rows = await this.keys.find({ where: { orgId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return rows.map(keyView);
  }

  /** A new key; the answer is the only place the key itself ever appears. */
  async createKey(orgId: string, name: string): Promise<ApiKeyView & { key: string }> {
    await this.mustExist(orgId);
    const key = newKey();
    const row = Object.assign(new MemoryApiKey(), { id: `key_${documentId(16)}`, orgId, name, prefix: key.slice(0, SHOWN_PREFIX), digest: keyDigest(key), createdAt: Date.now(), lastUsedAt: null });
    await this.keys.insert(row);
    return { ...keyView(row), key };
  }

  async revokeKey(orgId: string, keyId: string): Promise<void> {
    await this.mustExist(orgId);
    const result = await this.keys.delete({ id: keyId, orgId });
    if (!result.affected) throw new NotFoundError(`API key not found: ${keyId}`);
  }
}

function keyView(row: MemoryApiKey): ApiKeyView {
  return { id: row.id, orgId: row.orgId, name: row.name, prefix: row.prefix, createdAt: iso(row.createdAt)!, lastUsedAt: iso(row.lastUsedAt) };
}
