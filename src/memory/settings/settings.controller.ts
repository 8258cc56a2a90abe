import { Get, Patch } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { SettingsBody, SettingsUpdateResponse, UpdateSettingsBody } from './dto/settings.dto';
import { OrganizationSettingsService } from './organization-settings.service';
import type { SettingsView } from './organization-settings.service';
import { MemoryController, MemoryOperation } from '../memory-api.decorators';
import { Org } from '../organizations/org.decorator';
import { MemoryBody } from '../validation';

@MemoryController({
  path: 'v3/settings',
  tag: 'memory: settings',
  errors: [{ status: 401, description: 'Missing or invalid API key' }],
})
export class SettingsController {
  constructor(private readonly settings: OrganizationSettingsService) {}

  @Get()
  @MemoryOperation('settings.get', "The organisation's settings", { type: SettingsBody })
  get(@Org() org: string): Promise<SettingsView> {
    return this.settings.get(org);
  }

  @Patch()
  @MemoryOperation('settings.update', "Change some of the organisation's settings", {
    body: UpdateSettingsBody,
    type: SettingsUpdateResponse,
  })
  @ApiResponse({ status: 400, type: ErrorBody, description: 'Unknown or invalid field' })
  update(@Org() org: string, @MemoryBody() body: UpdateSettingsBody): Promise<{ orgId: string; orgSlug: string; updated: SettingsView }> {
    return this.settings.update(org, body);
  }
}
