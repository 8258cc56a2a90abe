import { Controller, Get } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { CommandInfo, CommandService } from './command.service';

@Controller('command')
export class CommandsController {
  constructor(private readonly commands: CommandService) {}

  @Get()
  @Operation('command.list')
  list(@CurrentInstance() instance: Instance): Promise<CommandInfo[]> {
    return this.commands.list(instance);
  }
}
