import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, DeepPartial } from 'typeorm';
import { ProjectEntity } from './project.entity';

/** The project rows. */
@Injectable()
export class ProjectRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  list(): Promise<ProjectEntity[]> {
    return this.db.getRepository(ProjectEntity).find({ order: { timeCreated: 'ASC' } });
  }

  find(id: string): Promise<ProjectEntity | null> {
    return this.db.getRepository(ProjectEntity).findOneBy({ id });
  }

  /** A project first seen: an upsert, as another request or replica may add it at the same time. */
  async add(fields: DeepPartial<ProjectEntity>): Promise<ProjectEntity> {
    const projects = this.db.getRepository(ProjectEntity);
    const row = projects.create(fields);
    await projects.upsert(row, ['id']);
    return row;
  }

  async save(row: ProjectEntity): Promise<void> {
    await this.db.getRepository(ProjectEntity).save(row);
  }

  async markInitialized(id: string, timeInitialized: number): Promise<void> {
    await this.db.getRepository(ProjectEntity).update({ id }, { timeInitialized });
  }
}
