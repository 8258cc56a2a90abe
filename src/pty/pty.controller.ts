import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { PtyService } from './pty.service';
import type { CreatePtyInput, UpdatePtyInput } from './pty.service';
import type { PtyInfo } from './terminal';

/** Bodies are validated against the reference schemas by `@Operation`. */
@Controller('pty')
export class PtyController {
  constructor(private readonly ptys: PtyService) {}

  @Get()
  @Operation('pty.list')
  list(@CurrentInstance() instance: Instance): PtyInfo[] {
    return this.ptys.list(instance.directory);
  }

  @Post()
  @Operation('pty.create')
  create(@CurrentInstance() instance: Instance, @Body() body: CreatePtyInput): Promise<PtyInfo> {
    return this.ptys.create(instance, body ?? {});
  }

  @Get(':ptyID')
  @Operation('pty.get')
  get(@CurrentInstance() instance: Instance, @Param('ptyID') id: string): PtyInfo {
    return this.ptys.get(instance.directory, id);
  }

  @Put(':ptyID')
  @Operation('pty.update')
  update(@CurrentInstance() instance: Instance, @Param('ptyID') id: string, @Body() body: UpdatePtyInput): PtyInfo {
    return this.ptys.update(instance.directory, id, body ?? {});
  }

  @Delete(':ptyID')
  @Operation('pty.remove')
  remove(@CurrentInstance() instance: Instance, @Param('ptyID') id: string): boolean {
    this.ptys.remove(instance.directory, id);
    return true;
  }

  /**
   * The WebSocket upgrade is handled by `PtyConnectGateway` on the HTTP server itself; a plain GET
   * reaches this handler and answers as the reference documents: `true` for a running terminal.
   */
  @Get(':ptyID/connect')
  @Operation('pty.connect')
  connect(@CurrentInstance() instance: Instance, @Param('ptyID') id: string): boolean {
    this.ptys.terminal(instance.directory, id);
    return true;
  }
}
