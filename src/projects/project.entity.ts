import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochColumn, JsonColumn } from '../common/columns';

@Entity('project')
export class ProjectEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'text' })
  worktree: string;

  @Column({ type: 'varchar', length: 16, nullable: true })
  vcs: 'git' | null;

  @Column({ type: 'text', nullable: true })
  name: string | null;

  @JsonColumn()
  icon?: { url?: string; color?: string };

  @EpochColumn({ name: 'time_created' })
  timeCreated: number;

  @EpochColumn({ name: 'time_updated' })
  timeUpdated: number;

  @EpochColumn({ name: 'time_initialized', nullable: true })
  timeInitialized?: number;
}

/** The reference's `Project` record. */
export interface Project {
  id: string;
  worktree: string;
  vcs?: 'git';
  name?: string;
  icon?: { url?: string; color?: string };
  time: { created: number; updated: number; initialized?: number };
  /** opencode 1.18's sandbox copies of the project (required there): Keel makes none. */
  sandboxes: string[];
}

export function toProject(row: ProjectEntity): Project {
  return {
    id: row.id,
    worktree: row.worktree,
    ...(row.vcs ? { vcs: row.vcs } : {}),
    ...(row.name ? { name: row.name } : {}),
    ...(row.icon ? { icon: row.icon } : {}),
    time: {
      created: row.timeCreated,
      updated: row.timeUpdated,
      ...(row.timeInitialized ? { initialized: row.timeInitialized } : {}),
    },
    sandboxes: [],
  };
}
