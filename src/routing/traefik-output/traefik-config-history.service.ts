import { Inject, Injectable, Logger } from '@nestjs/common';
import { structuredPatch } from 'diff';
import { NotFoundError } from '../../common/errors';
import { EventBus } from '../../events/event-bus.service';
import type { GlobalEnvelope } from '../../events/event-bus.service';
import { ROUTING_SETTINGS } from '../middleware-manager.settings';
import type { RoutingSettings } from '../middleware-manager.settings';
import {
  GenerationDetailDto,
  GenerationListDto,
  GenerationListQueryDto,
  GenerationSummaryDto,
} from './dto/traefik-history.dto';
import { TraefikConfigGeneration } from './traefik-config-generation.entity';
import { TraefikGenerationRepository } from './traefik-generation.repository';

const TRIGGERS_KEPT = 20;

/**
 * Published on `/global/event` once a generation is stored (`{id, trigger}`), so a page showing the
 * history refreshes it: the routing event that caused it came before the generation was recorded.
 * Not a `routing.` event, which would schedule a recording of its own.
 */
const GENERATION_RECORDED = 'traefik.generation.recorded';

/** `routing.resource.updated {id}` → `resource.updated 1-app-router`: what a person reads in the history. */
export function describeEvent(event: GlobalEnvelope): string {
  const type = event.payload.type.replace(/^routing\./, '');
  const p = (event.payload.properties ?? {}) as Record<string, unknown>;
  const named = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value;
    const o = value as { name?: unknown; id?: unknown } | undefined;
    return typeof o?.name === 'string' ? o.name : typeof o?.id === 'string' ? o.id : undefined;
  };
  const counts = (): string | undefined => {
    const parts = ['added', 'updated', 'reactivated', 'disabled']
      .map((k) => [k, Array.isArray(p[k]) ? (p[k] as unknown[]).length : 0] as const)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`);
    return parts.length ? parts.join(', ') : undefined;
  };
  const subject =
    type === 'resources.synced'
      ? counts()
      : (named(p.middleware) ?? named(p.service) ?? named(p.name) ?? named(p.id) ?? named(p.key));
  return subject ? `${type} ${subject}` : type;
}

/** A unified diff of two YAML texts, and the lines it adds and removes. */
function unifiedDiff(before: string, after: string, fromLabel: string, toLabel: string) {
  const patch = structuredPatch(fromLabel, toLabel, before, after, '', '', { context: 3 });
  let added = 0;
  let removed = 0;
  const lines = [`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
      lines.push(line);
    }
  }
  return { diff: patch.hunks.length ? `${lines.join('\n')}\n` : '', added, removed };
}

function summary(row: Omit<TraefikConfigGeneration, 'document' | 'diff'>): GenerationSummaryDto {
  return {
    id: row.id,
    created_at: new Date(row.created_at).toISOString(),
    trigger: row.trigger,
    added: row.added,
    removed: row.removed,
  };
}

/**
 * The history of the Traefik configuration: one row per generation whose YAML differs from the
 * latest kept, with what triggered it and the diff, pruned by count and age (the latest always stays).
 */
@Injectable()
export class TraefikConfigHistory {
  private readonly logger = new Logger('TraefikConfigHistory');
  private recording: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly generations: TraefikGenerationRepository,
    private readonly bus: EventBus,
    @Inject(ROUTING_SETTINGS) private readonly settings: RoutingSettings,
  ) {}

  /** Records `yaml` when it differs from the latest generation kept; one recording at a time. */
  record(yaml: string, triggers: string[]): Promise<TraefikConfigGeneration | undefined> {
    const run = this.recording.then(() => this.recordNow(yaml, triggers));
    this.recording = run.catch((error: unknown) =>
      this.logger.warn({ msg: 'recording a Traefik configuration generation failed', err: String(error) }),
    );
    return run;
  }

  /** Resolves once the recordings started so far are done. */
  settled(): Promise<unknown> {
    return this.recording;
  }

  private async recordNow(yaml: string, triggers: string[]): Promise<TraefikConfigGeneration | undefined> {
    const latest = await this.generations.latest();
    if (latest && latest.document === yaml) return undefined;
    const unique = [...new Set(triggers)];
    const trigger =
      (unique.length > TRIGGERS_KEPT
        ? [...unique.slice(0, TRIGGERS_KEPT), `and ${unique.length - TRIGGERS_KEPT} more`]
        : unique
      ).join('; ') || 'change';
    const now = new Date();
    // The first generation kept is a diff against nothing: every line of it added.
    const { diff, added, removed } = unifiedDiff(
      latest?.document ?? '',
      yaml,
      latest ? `traefik-config@${new Date(latest.created_at).toISOString()}` : 'traefik-config (none)',
      `traefik-config@${now.toISOString()}`,
    );
    const row = await this.generations.add({
      created_at: now,
      trigger,
      document: yaml,
      diff,
      added,
      removed,
    });
    const cutoff = new Date(Date.now() - this.settings.historyDays * 86_400_000);
    await this.generations.prune(row.id, cutoff, this.settings.historyMax);
    this.bus.publishGlobal(GENERATION_RECORDED, { id: row.id, trigger });
    return row;
  }

  /** Newest first; `before` pages on (an id from the previous page). */
  async list({ limit, before }: GenerationListQueryDto): Promise<GenerationListDto> {
    const rows = await this.generations.list(limit ? Number(limit) : 50, before ? Number(before) : undefined);
    return {
      generations: rows.map(summary),
      retention: { max: this.settings.historyMax, days: this.settings.historyDays },
    };
  }

  async get(id: number): Promise<GenerationDetailDto> {
    const row = await this.generations.find(id);
    if (!row) throw new NotFoundError(`Generation not found: ${id}`);
    const previous = await this.generations.previousId(id);
    return { ...summary(row), document: row.document, diff: row.diff, previous_id: previous ?? null };
  }
}
