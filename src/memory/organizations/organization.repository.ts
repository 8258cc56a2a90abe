import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { OrganizationSettings } from '../settings/organization-settings.entity';
import { IngestionStore } from '../store';
import { MemoryApiKey, MemoryOrganization } from './organization.entity';

/** Tables whose rows make an organization hold data (deleting it is refused while any is left). */
const DATA_TABLES = ['memory_document', 'memory_entry'] as const;

interface OrganizationRow {
  id: string;
  name: string;
  created_at: number | string;
  updated_at: number | string;
  keys: number | string;
}

/** Rows of a table that still hold data of an organization being deleted. */
export class OrganizationHoldsData extends Error {
  constructor(
    readonly table: string,
    readonly rows: number,
  ) {
    super(`${rows} rows of ${table}`);
  }
}

/** The SQL of organizations, their API keys and their settings row. */
@Injectable()
export class OrganizationRepository {
  constructor(
    private readonly store: IngestionStore,
    @InjectRepository(MemoryOrganization) private readonly organizations: Repository<MemoryOrganization>,
    @InjectRepository(MemoryApiKey) private readonly keys: Repository<MemoryApiKey>,
    @InjectRepository(OrganizationSettings) private readonly settings: Repository<OrganizationSettings>,
  ) {}

  /** The key with this digest (one indexed read: a memory request makes it at every call). */
  async keyByDigest(digest: string): Promise<{ id: string; org_id: string; last_used_at: number | string | null } | undefined> {
    const [row] = await this.store.query<{ id: string; org_id: string; last_used_at: number | string | null }>('SELECT id, org_id, last_used_at FROM memory_api_key WHERE digest = ?', [digest]);
    return row;
  }

  /** Bookkeeping a crash may lose (see IngestionStore.transaction's `relaxed`). */
  async stampKeyUse(id: string, now: number): Promise<void> {
    await this.store.transaction((q) => q('UPDATE memory_api_key SET last_used_at = ? WHERE id = ?', [now, id]), { relaxed: true });
  }

  /** Every organization with its number of keys, oldest first. */
  list(): Promise<OrganizationRow[]> {
    return this.store.query<OrganizationRow>(
      `SELECT o.id, o.name, o.created_at, o.updated_at, (SELECT COUNT(*) FROM memory_api_key k WHERE k.org_id = o.id) AS keys
       FROM memory_organization o ORDER BY o.created_at ASC, o.id ASC`,
    );
  }

  find(id: string): Promise<MemoryOrganization | null> {
    return this.organizations.findOneBy({ id });
  }

  async insert(organization: MemoryOrganization): Promise<void> {
    await this.organizations.insert(organization);
  }

  async rename(id: string, name: string, now: number): Promise<void> {
    await this.organizations.update({ id }, { name, updatedAt: now });
  }

  /**
   * Deletes an organization with its keys, settings and pending webhook deliveries, in one
   * transaction: keys go first (and come back if the deletion is refused), so once it commits no
   * request can add data to it. Throws OrganizationHoldsData when documents or memories are left.
   */
  async removeEmpty(id: string): Promise<void> {
    await this.store.transaction(async (q) => {
      await q(`SELECT id FROM memory_organization WHERE id = ?${this.store.forUpdate}`, [id]);
      await q('DELETE FROM memory_api_key WHERE org_id = ?', [id]);
      for (const table of DATA_TABLES) {
        const [{ n }] = await q<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table} WHERE org_id = ?`, [id]);
        if (Number(n) > 0) throw new OrganizationHoldsData(table, Number(n));
      }
      await q('DELETE FROM organization_settings WHERE org_id = ?', [id]);
      await q('DELETE FROM memory_webhook_delivery WHERE org_id = ?', [id]);
      await q('DELETE FROM memory_organization WHERE id = ?', [id]);
    });
  }

  keysOf(orgId: string): Promise<MemoryApiKey[]> {
    return this.keys.find({ where: { orgId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async insertKey(key: MemoryApiKey): Promise<void> {
    await this.keys.insert(key);
  }

  /** Whether a key of this organization was deleted. */
  async deleteKey(orgId: string, keyId: string): Promise<boolean> {
    return !!(await this.keys.delete({ id: keyId, orgId })).affected;
  }

  settingsOf(orgId: string): Promise<OrganizationSettings | null> {
    return this.settings.findOneBy({ orgId });
  }

  /** Sets these fields of the organization's settings row, inserted if absent. */
  async saveSettings(orgId: string, changes: Partial<OrganizationSettings>): Promise<void> {
    // Insert-if-absent then update: two replicas' first PATCHes cannot both insert the row.
    await this.settings.createQueryBuilder().insert().values({ orgId, updatedAt: Date.now() }).orIgnore().execute();
    await this.settings.update({ orgId }, { ...changes, updatedAt: Date.now() });
  }
}
