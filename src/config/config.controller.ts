import { Body, Controller, Get, Patch } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { located } from '../projects/location';
import type { Located } from '../projects/location';
import type { Config } from './config.service';
import { ConfigService } from './config.service';

@Controller()
export class ConfigController {
  constructor(private readonly config: ConfigService) {}

  @Get('config')
  @Operation('config.get')
  get(@CurrentInstance() instance: Instance): Promise<Config> {
    return this.config.get(instance);
  }

  @Patch('config')
  @Operation('config.update')
  update(@CurrentInstance() instance: Instance, @Body() body: Config = {}): Promise<Config> {
    return this.config.update(instance, body ?? {});
  }

  /** opencode's v2 API: the config's references (the 1.18 TUI asks at start). */
  @Get('api/reference')
  @Operation('v2.reference.list')
  references(@CurrentInstance() instance: Instance): Located<never[]> {
    return located(instance, this.config.references());
  }
}
