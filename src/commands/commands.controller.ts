import { Controller, Get } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { located } from '../projects/location';
import type { Located } from '../projects/location';
import { CommandService } from './command.service';
import type { CommandInfo, CommandV2Info } from './command.service';

@Controller()
export class CommandsController {
  constructor(private readonly commands: CommandService) {}

  @Get('command')
  @Operation('command.list')
  list(@CurrentInstance() instance: Instance): Promise<CommandInfo[]> {
    return this.commands.list(instance);
  }

  /** opencode's v2 API, which the 1.18 TUI reads at start. */
  @Get('api/command')
  @Operation('v2.command.list')
  async listV2(@CurrentInstance() instance: Instance): Promise<Located<CommandV2Info[]>> {
    return located(instance, await this.commands.listV2(instance));
  }
}
