import { Controller, Get } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { AgentService } from './agent.service';
import type { AgentInfo } from './builtin-agents';

@Controller('agent')
export class AgentsController {
  constructor(private readonly agents: AgentService) {}

  @Get()
  @Operation('app.agents')
  list(@CurrentInstance() instance: Instance): Promise<AgentInfo[]> {
    return this.agents.list(instance);
  }
}
