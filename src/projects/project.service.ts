import { Injectable } from '@nestjs/common';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '../common/errors';
import { git } from '../common/git';
import { isDirectory } from '../common/paths';
import { EventBus } from '../events/event-bus.service';
import { Project, toProject } from './project.entity';
import { ProjectRepository } from './project.repository';

interface ResolvedProject {
  project: Project;
  worktree: string;
}

@Injectable()
export class ProjectService {
  constructor(
    private readonly projects: ProjectRepository,
    private readonly bus: EventBus,
  ) {}

  /**
   * As the reference: the project of a git repository is its first root commit (cached in
   * `.git/opencode`); a repository without commits, or a plain directory, is `global`.
   */
  async fromDirectory(directory: string): Promise<ResolvedProject> {
    const top = await git(directory, ['rev-parse', '--show-toplevel']);
    if (!top) return { project: await this.upsert('global', '/', null), worktree: '/' };
    const gitDir = (await git(directory, ['rev-parse', '--absolute-git-dir'])) ?? join(top, '.git');
    const cacheFile = join(gitDir, 'opencode');
    let id = (await readFile(cacheFile, 'utf8').catch(() => '')).trim();
    if (!id) {
      const roots = await git(directory, ['rev-list', '--max-parents=0', '--all']);
      id = roots?.split('\n').filter(Boolean).sort()[0] ?? '';
      if (id) await writeFile(cacheFile, id).catch(() => undefined);
    }
    return { project: await this.upsert(id || 'global', top, 'git'), worktree: top };
  }

  async list(): Promise<Project[]> {
    return (await this.projects.list()).map(toProject);
  }

  async get(id: string): Promise<Project> {
    const row = await this.projects.find(id);
    if (!row) throw new NotFoundError(`Project not found: ${id}`);
    return toProject(row);
  }

  /**
   * The directories a project is known by, as opencode 1.18 lists them (its `/move` dialog):
   * `{directory, strategy?}`, where an entry without `strategy` is the project's main checkout and
   * the others are the repository's other git worktrees (`strategy: "git_worktree"`, as opencode
   * records the copies it makes). Read from git on every call, so nothing needs refreshing.
   */
  async directories(id: string): Promise<{ directory: string; strategy?: string }[]> {
    const { worktree, vcs } = await this.get(id);
    const result: { directory: string; strategy?: string }[] = [{ directory: worktree }];
    if (vcs !== 'git') return result;
    const listed = (await git(worktree, ['worktree', 'list', '--porcelain'])) ?? '';
    for (const line of listed.split('\n')) {
      const directory = line.startsWith('worktree ') ? line.slice('worktree '.length) : undefined;
      if (directory && directory !== worktree && (await isDirectory(directory))) result.push({ directory, strategy: 'git_worktree' });
    }
    return result;
  }

  /**
   * `POST /experimental/project/{id}/copy/refresh` (the 1.18 TUI's `/move`): opencode re-reads the
   * project's copies into its store here. Keel reads them from git whenever they are listed, so it
   * only checks that the project exists.
   */
  async refreshDirectories(id: string): Promise<void> {
    await this.get(id);
  }

  async update(id: string, patch: { name?: string; icon?: { url?: string; color?: string } }): Promise<Project> {
    const row = await this.projects.find(id);
    if (!row) throw new NotFoundError(`Project not found: ${id}`);
    if (patch.name !== undefined) row.name = patch.name;
    if (patch.icon !== undefined) row.icon = { ...row.icon, ...patch.icon };
    row.timeUpdated = Date.now();
    await this.projects.save(row);
    const project = toProject(row);
    this.bus.publishGlobal('project.updated', project);
    return project;
  }

  async markInitialized(id: string): Promise<void> {
    await this.projects.markInitialized(id, Date.now());
  }

  private async upsert(id: string, worktree: string, vcs: 'git' | null): Promise<Project> {
    const now = Date.now();
    let row = await this.projects.find(id);
    if (!row) {
      row = await this.projects.add({ id, worktree, vcs, name: null, timeCreated: now, timeUpdated: now });
    } else if (row.worktree !== worktree || row.vcs !== vcs) {
      row.worktree = worktree;
      row.vcs = vcs;
      row.timeUpdated = now;
      await this.projects.save(row);
    }
    const project = toProject(row);
    this.bus.publishGlobal('project.updated', project);
    return project;
  }
}
