import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Subscription } from 'rxjs';
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
type DisposeHook = (directory: string) => Promise<void> | void;

/** Sent to the other replicas (PostgreSQL) so a dispose anywhere disposes everywhere. */
const DISPOSE_SIGNAL = 'keel.instance.dispose';
interface DisposeSignal {
  origin: string;
  /** One directory, or every instance (`/global/dispose`) when absent. */
  directory?: string;
  /** Directories whose `server.instance.disposed` the origin already published. */
  announced: string[];
}

@Injectable()
export class InstanceService implements BeforeApplicationShutdown, OnModuleDestroy {
  private readonly logger = new Logger('InstanceService');
  private readonly instances = new Map<string, Promise<Instance>>();
  /** Project of each directory with an Instance, for the events published for it (`project` on `/global/event`). */
  private readonly projectIDs = new Map<string, string>();
  private readonly hooks: DisposeHook[] = [];
  private readonly replica = randomUUID();
  private readonly remoteDisposals: Subscription;

  constructor(
    private readonly projects: ProjectService,
    private readonly bus: EventBus,
  ) {
    this.remoteDisposals = bus.signals<DisposeSignal>(DISPOSE_SIGNAL).subscribe((signal) => {
      if (signal.origin !== this.replica) void this.disposeForOtherReplica(signal);
    });
    bus.resolveProjectsWith((directory) => this.projectIDs.get(directory));
  }

  onModuleDestroy(): void {
    this.remoteDisposals.unsubscribe();
  }

  /** The instance of a directory, created on first use. */
  get(directory: string): Promise<Instance> {
    let instance = this.instances.get(directory);
    if (!instance) {
      instance = this.projects.fromDirectory(directory).then(({ project, worktree }) => {
        this.projectIDs.set(directory, project.id);
        return { directory, worktree, project };
      });
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

  /** `/instance/dispose`: this replica's instance and, through the relay, the other replicas' ones. */
  async dispose(directory: string): Promise<void> {
    await this.disposeHere(directory);
    this.bus.signal<DisposeSignal>(DISPOSE_SIGNAL, { origin: this.replica, directory, announced: [directory] });
  }

  /** `/global/dispose`: every instance on every replica. */
  async disposeAll(): Promise<void> {
    const announced = this.directories();
    for (const directory of announced) await this.disposeHere(directory);
    this.bus.signal<DisposeSignal>(DISPOSE_SIGNAL, { origin: this.replica, announced });
    this.bus.publishGlobal('global.disposed', {}, 'global');
  }

  /** Before the HTTP server closes: abort prompts, kill PTYs, end `/event` streams (this replica only). */
  async beforeApplicationShutdown(): Promise<void> {
    for (const directory of this.directories()) await this.disposeHere(directory);
  }

  private async disposeHere(directory: string, announce = true): Promise<void> {
    for (const hook of this.hooks) {
      try {
        await hook(directory);
      } catch (error) {
        this.logger.error({ msg: 'dispose hook failed', directory, error: String(error) });
      }
    }
    this.instances.delete(directory);
    if (announce) this.bus.publish(directory, 'server.instance.disposed', { directory });
    this.projectIDs.delete(directory);
  }

  /** Another replica disposed: drop the same instances here, announcing only those it did not. */
  private async disposeForOtherReplica({ directory, announced }: DisposeSignal): Promise<void> {
    const targets = directory === undefined ? this.directories() : this.instances.has(directory) ? [directory] : [];
    for (const target of targets) await this.disposeHere(target, !announced.includes(target));
  }
}
