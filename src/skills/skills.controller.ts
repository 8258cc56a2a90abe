import { Controller, Get } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { located } from '../projects/location';
import type { Located } from '../projects/location';
import type { SkillInfo } from './skill-files';
import { SkillService } from './skill.service';

@Controller()
export class SkillsController {
  constructor(private readonly skills: SkillService) {}

  /** The 1.18 TUI's `/skills` dialog. */
  @Get('skill')
  @Operation('app.skills')
  list(@CurrentInstance() instance: Instance): Promise<SkillInfo[]> {
    return this.skills.list(instance);
  }

  /** opencode's v2 API: the same skills in a `{location, data}` envelope. */
  @Get('api/skill')
  @Operation('v2.skill.list')
  async listV2(@CurrentInstance() instance: Instance): Promise<Located<SkillInfo[]>> {
    return located(instance, await this.skills.list(instance));
  }
}
