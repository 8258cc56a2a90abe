import { Body, Controller, Get, Patch } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { located } from '../projects/location';
import type { Located } from '../projects/location';
import type { Config } from './config.service';
import { ConfigService } from './config.service';

/** What opencode's answer names as the config's JSON schema. */
const CONFIG_SCHEMA_URL = 'https://opencode.ai/config.json';

@Controller()
export class ConfigController {
  constructor(private readonly config: ConfigService) {}

  @Get('config')
  @Operation('config.get')
  async get(@CurrentInstance() instance: Instance): Promise<Config> {
    const config = await this.config.get(instance);
    // The reference names its schema in the answer (the editor support of clients that save it back).
    return config.$schema ? config : { $schema: CONFIG_SCHEMA_URL, ...config };
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
