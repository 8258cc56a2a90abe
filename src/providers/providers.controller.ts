import { Body, Controller, Get, Param, Put, UseFilters } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import type { ProviderAuth } from './auth-store';
import { ProviderService } from './provider.service';
import { RedactCredentialsFilter } from './redact-credentials.filter';

@Controller()
export class ProvidersController {
  constructor(private readonly providers: ProviderService) {}

  @Get('config/providers')
  @Operation('config.providers')
  configProviders(@CurrentInstance() instance: Instance) {
    return this.providers.configProviders(instance);
  }

  @Get('provider')
  @Operation('provider.list')
  list(@CurrentInstance() instance: Instance) {
    return this.providers.providerList(instance);
  }

  /** Login methods per provider: Keel offers no OAuth flows, API keys go through PUT /auth. */
  @Get('provider/auth')
  @Operation('provider.auth')
  authMethods(): Record<string, never> {
    return {};
  }

  @Put('auth/:providerID')
  @Operation('auth.set')
  @UseFilters(RedactCredentialsFilter)
  async setAuth(@Param('providerID') providerID: string, @Body() body: ProviderAuth): Promise<boolean> {
    await this.providers.setAuth(providerID, body);
    return true;
  }
}
