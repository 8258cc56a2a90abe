import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, LessThan } from 'typeorm';
import { TraefikConfigGeneration } from './traefik-config-generation.entity';

/** The queries of `traefik_config_history`. */
@Injectable()
export class TraefikGenerationRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get repo() {
    return this.db.getRepository(TraefikConfigGeneration);
  }

  async latest(): Promise<TraefikConfigGeneration | undefined> {
    const [latest] = await this.repo.find({ order: { id: 'DESC' }, take: 1 });
    return latest;
  }

  add(row: Omit<TraefikConfigGeneration, 'id'>): Promise<TraefikConfigGeneration> {
    return this.repo.save(this.repo.create(row));
  }

  /** Deletes the generations before `latestId` older than `cutoff`, then all but the newest `keep`. */
  async prune(latestId: number, cutoff: Date, keep: number): Promise<void> {
    await this.repo.delete({ id: LessThan(latestId), created_at: LessThan(cutoff) });
    const [oldestKept] = await this.repo.find({
      select: { id: true },
      order: { id: 'DESC' },
      skip: keep - 1,
      take: 1,
    });
    if (oldestKept) await this.repo.delete({ id: LessThan(oldestKept.id) });
  }

  /** Newest first, without document and diff; `before` an id. */
  list(limit: number, before?: number): Promise<Omit<TraefikConfigGeneration, 'document' | 'diff'>[]> {
    return this.repo.find({
      select: { id: true, created_at: true, trigger: true, added: true, removed: true },
      where: before === undefined ? {} : { id: LessThan(before) },
      order: { id: 'DESC' },
      take: limit,
    });
  }

  find(id: number): Promise<TraefikConfigGeneration | null> {
    return this.repo.findOne({ where: { id } });
  }

  /** The id of the generation kept before `id`. */
  async previousId(id: number): Promise<number | undefined> {
    const [previous] = await this.repo.find({
      select: { id: true },
      where: { id: LessThan(id) },
      order: { id: 'DESC' },
      take: 1,
    });
    return previous?.id;
  }
}
