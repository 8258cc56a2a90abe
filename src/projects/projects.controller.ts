import { Body, Controller, Get, Inject, Param, Patch, Post } from '@nestjs/common';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CurrentInstance } from '../common/current-instance.decorator';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from './instance.service';
import { InstanceService } from './instance.service';
import { locationOf } from './location';
import type { LocationInfo } from './location';
import type { Project } from './project.entity';
import { ProjectService } from './project.service';
import { KEEL_VERSION } from '../common/version';

@Controller()
export class GlobalController {
  constructor(private readonly instances: InstanceService) {}

  @Get('global/health')
  @Operation('global.health')
  health(): { healthy: true; version: string } {
    return { healthy: true, version: KEEL_VERSION };
  }

  @Post('global/dispose')
  @Operation('global.dispose')
  async disposeAll(): Promise<boolean> {
    await this.instances.disposeAll();
    return true;
  }
}

@Controller()
export class ProjectsController {
  constructor(
    private readonly projects: ProjectService,
    private readonly instances: InstanceService,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
  ) {}

  @Get('project')
  @Operation('project.list')
  list(): Promise<Project[]> {
    return this.projects.list();
  }

  @Get('project/current')
  @Operation('project.current')
  current(@CurrentInstance() instance: Instance): Promise<Project> {
    return this.projects.get(instance.project.id);
  }

  @Patch('project/:projectID')
  @Operation('project.update')
  update(
    @Param('projectID') projectID: string,
    @Body() body: { name?: string; icon?: { url?: string; color?: string } } = {},
  ): Promise<Project> {
    return this.projects.update(projectID, body ?? {});
  }

  @Get('project/:projectID/directories')
  @Operation('project.directories')
  directories(@Param('projectID') projectID: string): Promise<{ directory: string; strategy?: string }[]> {
    return this.projects.directories(projectID);
  }

  @Post('experimental/project/:projectID/copy/refresh')
  @Operation('v2.projectCopy.refresh')
  async refreshDirectories(@Param('projectID') projectID: string): Promise<void> {
    await this.projects.refreshDirectories(projectID);
  }

  /** opencode's v2 API: where a request resolves (the 1.18 TUI asks at start). */
  @Get('api/location')
  @Operation('v2.location.get')
  location(@CurrentInstance() instance: Instance): LocationInfo {
    return locationOf(instance);
  }

  @Post('instance/dispose')
  @Operation('instance.dispose')
  async dispose(@CurrentInstance() instance: Instance): Promise<boolean> {
    await this.instances.dispose(instance.directory);
    return true;
  }

  @Get('path')
  @Operation('path.get')
  path(@CurrentInstance() instance: Instance): PathInfo {
    const home = homedir();
    return {
      home,
      state: join(this.settings.dataDir, 'state'),
      config: process.env.XDG_CONFIG_HOME ? join(process.env.XDG_CONFIG_HOME, 'opencode') : join(home, '.config', 'opencode'),
      worktree: instance.worktree,
      directory: instance.directory,
    };
  }
}

/** `GET /path`: the directories opencode's clients show and resolve against. */
interface PathInfo {
  home: string;
  state: string;
  config: string;
  worktree: string;
  directory: string;
}
