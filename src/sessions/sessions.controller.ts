import { Body, Controller, Delete, Get, Inject, Param, Patch, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { publicBaseUrl } from '../common/public-url';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { CurrentInstance } from '../common/current-instance.decorator';
import { SerializedJson } from '../common/serialized-json';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { SessionStatusService } from './session-status.service';
import type { SessionStatus } from './session-status.service';
import type { FileDiff, Session, Todo } from './session.entity';
import { SessionCreateInput, SessionService } from './session.service';
import { TodoService } from './todo.service';

@Controller('session')
export class SessionsController {
  constructor(
    private readonly sessions: SessionService,
    private readonly statuses: SessionStatusService,
    private readonly todos: TodoService,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
  ) {}

  @Get()
  @Operation('session.list')
  list(@CurrentInstance() instance: Instance): Promise<SerializedJson<Session[]>> {
    return this.sessions.list(instance.project.id);
  }

  @Post()
  @Operation('session.create')
  create(@CurrentInstance() instance: Instance, @Body() body: SessionCreateInput | undefined): Promise<Session> {
    return this.sessions.create(instance, body ?? {});
  }

  // Declared before `:sessionID` so "status" is not taken for an id.
  @Get('status')
  @Operation('session.status')
  status(@CurrentInstance() instance: Instance): Record<string, SessionStatus> {
    return this.statuses.nonIdle(instance.project.id);
  }

  @Get(':sessionID')
  @Operation('session.get')
  get(@Param('sessionID') sessionID: string): Promise<Session> {
    return this.sessions.get(sessionID);
  }

  @Delete(':sessionID')
  @Operation('session.delete')
  async delete(@Param('sessionID') sessionID: string): Promise<boolean> {
    await this.sessions.delete(sessionID);
    return true;
  }

  @Patch(':sessionID')
  @Operation('session.update')
  update(
    @Param('sessionID') sessionID: string,
    @Body() body: { title?: string; time?: { archived?: number } } | undefined,
  ): Promise<Session> {
    return this.sessions.update(sessionID, { title: body?.title, archived: body?.time?.archived });
  }

  @Get(':sessionID/children')
  @Operation('session.children')
  children(@Param('sessionID') sessionID: string): Promise<Session[]> {
    return this.sessions.children(sessionID);
  }

  @Get(':sessionID/todo')
  @Operation('session.todo')
  todo(@Param('sessionID') sessionID: string): Promise<Todo[]> {
    return this.todos.get(sessionID);
  }

  @Get(':sessionID/diff')
  @Operation('session.diff')
  diff(@Param('sessionID') sessionID: string): Promise<FileDiff[]> {
    return this.sessions.diff(sessionID);
  }

  @Post(':sessionID/share')
  @Operation('session.share')
  share(@Param('sessionID') sessionID: string, @Req() req: Request): Promise<Session> {
    return this.sessions.share(sessionID, publicBaseUrl(req, this.settings));
  }

  @Delete(':sessionID/share')
  @Operation('session.unshare')
  unshare(@Param('sessionID') sessionID: string): Promise<Session> {
    return this.sessions.unshare(sessionID);
  }
}
