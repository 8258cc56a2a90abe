import { Body, Controller, Get, HttpCode, Patch } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { SettingsBody, SettingsUpdateResponse, UpdateSettingsBody } from './dto/settings.dto';
import { OrganizationSettingsService } from './organization-settings.service';
import { MemoryApiAuth } from '../memory-auth.decorator';

@ApiTags('memory: settings')
@MemoryApiAuth()
@ApiResponse({ status: 401, type: ErrorBody, description: 'Missing or invalid API key' })
@Controller('v3/settings')
export class SettingsController {
  constructor(private readonly settings: OrganizationSettingsService) {}

  @Get()
  @ApiOperation({ operationId: 'settings.get', summary: "The organisation's settings" })
  @ApiResponse({ status: 200, type: SettingsBody })
  get() {
    return this.settings.get();
  }

  @Patch()
  @HttpCode(200)
  @ApiOperation({ operationId: 'settings.update', summary: "Change some of the organisation's settings" })
  @ApiBody({ type: UpdateSettingsBody })
  @ApiResponse({ status: 200, type: SettingsUpdateResponse })
  @ApiResponse({ status: 400, type: ErrorBody, description: 'Unknown or invalid field' })
  update(@Body() body: unknown) {
    return this.settings.update(body);
  }
}
