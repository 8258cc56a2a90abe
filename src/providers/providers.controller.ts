import { Body, Controller, Get, Param, Put, UseFilters } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { located } from '../projects/location';
import type { Located } from '../projects/location';
import type { ProviderAuth } from './auth-store';
import type { IntegrationInfo, ModelV2Info, ProviderV2Info } from './provider-v2';
import { ProviderService } from './provider.service';
import type { ConfigProviders, ProviderList } from './provider.service';
import { RedactCredentialsFilter } from './redact-credentials.filter';

@Controller()
export class ProvidersController {
  constructor(private readonly providers: ProviderService) {}

  @Get('config/providers')
  @Operation('config.providers')
  configProviders(@CurrentInstance() instance: Instance): Promise<ConfigProviders> {
    return this.providers.configProviders(instance);
  }

  @Get('provider')
  @Operation('provider.list')
  list(@CurrentInstance() instance: Instance): Promise<ProviderList> {
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

  /** opencode's v2 API, which the 1.18 TUI reads at start and after provider changes. */
  @Get('api/provider')
  @Operation('v2.provider.list')
  async listV2(@CurrentInstance() instance: Instance): Promise<Located<ProviderV2Info[]>> {
    return located(instance, await this.providers.providersV2(instance));
  }

  @Get('api/model')
  @Operation('v2.model.list')
  async modelsV2(@CurrentInstance() instance: Instance): Promise<Located<ModelV2Info[]>> {
    return located(instance, await this.providers.modelsV2(instance));
  }

  @Get('api/integration')
  @Operation('v2.integration.list')
  async integrationsV2(@CurrentInstance() instance: Instance): Promise<Located<IntegrationInfo[]>> {
    return located(instance, await this.providers.integrationsV2(instance));
  }
}
