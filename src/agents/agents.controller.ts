import { Controller, Get } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { located } from '../projects/location';
import type { Located } from '../projects/location';
import { AgentService } from './agent.service';
import type { AgentV2Info } from './agent-v2';
import type { AgentInfo } from './builtin-agents';

@Controller()
export class AgentsController {
  constructor(private readonly agents: AgentService) {}

  @Get('agent')
  @Operation('app.agents')
  list(@CurrentInstance() instance: Instance): Promise<AgentInfo[]> {
    return this.agents.list(instance);
  }

  /** opencode's v2 API, which the 1.18 TUI reads at start. */
  @Get('api/agent')
  @Operation('v2.agent.list')
  async listV2(@CurrentInstance() instance: Instance): Promise<Located<AgentV2Info[]>> {
    return located(instance, await this.agents.listV2(instance));
  }
}
