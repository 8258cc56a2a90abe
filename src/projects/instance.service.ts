import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { EventBus } from '../events/event-bus.service';
import { Project } from './project.entity';
import { ProjectService } from './project.service';

/** The per-directory context every session-surface request runs in. */
export interface Instance {
  directory: string;
  worktree: string;
  project: Project;
}

/** Runs when an instance is disposed: abort its prompts, reject its permissions, kill its PTYs… */
export type DisposeHook = (directory: string) => Promise<void> | void;

@Injectable()
export class InstanceService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(InstanceService.name);
  private readonly instances = new Map<string, Promise<Instance>>();
  private readonly hooks: DisposeHook[] = [];

  constructor(
    private readonly projects: ProjectService,
    private readonly bus: EventBus,
  ) {}

  /** The instance of a directory, created on first use. */
  get(directory: string): Promise<Instance> {
    let instance = this.instances.get(directory);
    if (!instance) {
      instance = this.projects.fromDirectory(directory).then(({ project, worktree }) => ({
        directory,
        worktree,
        project,
      }));
      this.instances.set(directory, instance);
      instance.catch(() => this.instances.delete(directory));
    }
    return instance;
  }

  /** Modules with per-directory state register here instead of depending on each other. */
  onDispose(hook: DisposeHook): void {
    this.hooks.push(hook);
  }

  directories(): string[] {
    return [...this.instances.keys()];
  }

  async dispose(directory: string): Promise<void> {
    for (const hook of this.hooks) {
      try {
        await hook(directory);
      } catch (error) {
        this.logger.error({ msg: 'dispose hook failed', directory, error: String(error) });
      }
    }
    this.instances.delete(directory);
    this.bus.publish(directory, 'server.instance.disposed', { directory });
  }

  async disposeAll(): Promise<void> {
    for (const directory of this.directories()) await this.dispose(directory);
    this.bus.publishGlobal('global.disposed', {}, 'global');
  }

  /** Before the HTTP server closes: abort prompts, kill PTYs, end `/event` streams. */
  async beforeApplicationShutdown(): Promise<void> {
    for (const directory of this.directories()) await this.dispose(directory);
  }
}
