import { Body, Controller, Get, Patch } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import type { Config } from './config.service';
import { ConfigService } from './config.service';

@Controller('config')
export class ConfigController {
  constructor(private readonly config: ConfigService) {}

  @Get()
  @Operation('config.get')
  get(@CurrentInstance() instance: Instance): Promise<Config> {
    return this.config.get(instance);
  }

  @Patch()
  @Operation('config.update')
  update(@CurrentInstance() instance: Instance, @Body() body: Config = {}): Promise<Config> {
    return this.config.update(instance, body ?? {});
  }
}
