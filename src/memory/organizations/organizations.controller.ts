import { Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import { ApiBasicAuth, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { OrganizationsService } from './organizations.service';
import { ApiKeyBody, ApiKeyView, CreatedApiKey, OrganizationBody, OrganizationView } from './dto/organization.dto';
import { MemoryBody } from '../validation';
import { MemoryOperation } from '../memory-api.decorators';

class SessionErrorBody {
  @ApiProperty({ example: 'NotFoundError' }) name!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { message: 'Organization not found: org_x' } })
  data!: Record<string, unknown>;
}

class ValidationErrorBody {
  @ApiProperty({ example: false }) success!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'The input' })
  data!: unknown;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'One issue per bad field, with its path' })
  error!: unknown[];
}

/**
 * Organizations and API keys of the memory surface (a Keel addition), behind the server password:
 * each key reads and writes its organization's memory space only.
 */
@ApiTags('keel: organizations')
@ApiBasicAuth('basic')
@ApiResponse({ status: 401, description: 'Missing or wrong server password' })
@Controller('keel/organizations')
export class OrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Get()
  @MemoryOperation('organizations.list', 'Organizations, the default one first', { type: [OrganizationView] })
  list(): Promise<OrganizationView[]> {
    return this.organizations.list();
  }

  @Post()
  @MemoryOperation('organizations.create', 'Create an organization', {
    body: OrganizationBody,
    status: 201,
    type: OrganizationView,
  })
  @ApiResponse({ status: 400, type: ValidationErrorBody, description: 'A bad field, named in error[].path' })
  create(@MemoryBody() body: OrganizationBody): Promise<OrganizationView> {
    return this.organizations.create(body.name);
  }

  @Patch(':id')
  @MemoryOperation('organizations.rename', 'Rename an organization', {
    body: OrganizationBody,
    type: OrganizationView,
  })
  @ApiResponse({ status: 400, type: ValidationErrorBody })
  @ApiResponse({ status: 404, type: SessionErrorBody })
  rename(@Param('id') id: string, @MemoryBody() body: OrganizationBody): Promise<OrganizationView> {
    return this.organizations.rename(id, body.name);
  }

  @Delete(':id')
  @MemoryOperation(
    'organizations.delete',
    'Delete an organization without data, with its keys and settings',
    { status: 204, description: 'Deleted' },
  )
  @ApiResponse({ status: 404, type: SessionErrorBody })
  @ApiResponse({ status: 409, type: SessionErrorBody, description: 'The default organization, or one still holding documents or memories' })
  async remove(@Param('id') id: string): Promise<void> {
    await this.organizations.remove(id);
  }

  @Get(':id/keys')
  @MemoryOperation('organizations.keys.list', "An organization's API keys (never the keys themselves)", {
    type: [ApiKeyView],
  })
  @ApiResponse({ status: 404, type: SessionErrorBody })
  keys(@Param('id') id: string): Promise<ApiKeyView[]> {
    return this.organizations.listKeys(id);
  }

  @Post(':id/keys')
  @MemoryOperation(
    'organizations.keys.create',
    'Create an API key; the answer holds the key, shown only this once',
    { body: ApiKeyBody, status: 201, type: CreatedApiKey },
  )
  @ApiResponse({ status: 400, type: ValidationErrorBody })
  @ApiResponse({ status: 404, type: SessionErrorBody })
  createKey(@Param('id') id: string, @MemoryBody() body: ApiKeyBody): Promise<CreatedApiKey> {
    return this.organizations.createKey(id, body.name);
  }

  @Delete(':id/keys/:keyId')
  @MemoryOperation('organizations.keys.revoke', 'Revoke an API key: refused at once on every replica', {
    status: 204,
    description: 'Revoked',
  })
  @ApiResponse({ status: 404, type: SessionErrorBody })
  async revokeKey(@Param('id') id: string, @Param('keyId') keyId: string): Promise<void> {
    await this.organizations.revokeKey(id, keyId);
  }
}
