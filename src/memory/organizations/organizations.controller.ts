import { Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import { ApiBasicAuth, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { OrganizationsService } from './organizations.service';
import type { ApiKeyView as ApiKeyAnswer, OrganizationView as OrganizationAnswer } from './organizations.service';
import { ApiKeyBody, OrganizationBody } from './dto/organization.dto';
import { MemoryBody } from '../validation';
import { MemoryOperation } from '../memory-operation.decorator';

class OrganizationView {
  @ApiProperty({ example: 'org_3Fq9XkT2mNpL8vWc' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The default organization (KEEL_API_KEYS, requests without a key, data from before organizations)' }) isDefault!: boolean;
  @ApiProperty({ type: 'integer' }) keyCount!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

class ApiKeyView {
  @ApiProperty({ example: 'key_8hG2LmQ0pZx4Rt7Y' }) id!: string;
  @ApiProperty() orgId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The first characters of the key, to tell keys apart', example: 'keel_a1B2c3D4' }) prefix!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Last memory request with the key (to the minute)' }) lastUsedAt!: string | null;
}

class CreatedApiKey extends ApiKeyView {
  @ApiProperty({ description: 'The key itself: shown in this answer only (Keel keeps its SHA-256 digest)' }) key!: string;
}

class SessionErrorBody {
  @ApiProperty({ example: 'NotFoundError' }) name!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { message: 'Organization not found: org_x' } }) data!: Record<string, unknown>;
}

class ValidationErrorBody {
  @ApiProperty({ example: false }) success!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'The input' }) data!: unknown;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'One issue per bad field, with its path' }) error!: unknown[];
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
  list(): Promise<OrganizationAnswer[]> {
    return this.organizations.list();
  }

  @Post()
  @MemoryOperation('organizations.create', 'Create an organization', { body: OrganizationBody, status: 201, type: OrganizationView })
  @ApiResponse({ status: 400, type: ValidationErrorBody, description: 'A bad field, named in error[].path' })
  create(@MemoryBody() body: OrganizationBody): Promise<OrganizationAnswer> {
    return this.organizations.create(body.name);
  }

  @Patch(':id')
  @MemoryOperation('organizations.rename', 'Rename an organization', { body: OrganizationBody, type: OrganizationView })
  @ApiResponse({ status: 400, type: ValidationErrorBody })
  @ApiResponse({ status: 404, type: SessionErrorBody })
  rename(@Param('id') id: string, @MemoryBody() body: OrganizationBody): Promise<OrganizationAnswer> {
    return this.organizations.rename(id, body.name);
  }

  @Delete(':id')
  @MemoryOperation('organizations.delete', 'Delete an organization without data, with its keys and settings', { status: 204, description: 'Deleted' })
  @ApiResponse({ status: 404, type: SessionErrorBody })
  @ApiResponse({ status: 409, type: SessionErrorBody, description: 'The default organization, or one still holding documents or memories' })
  async remove(@Param('id') id: string): Promise<void> {
    await this.organizations.remove(id);
  }

  @Get(':id/keys')
  @MemoryOperation('organizations.keys.list', "An organization's API keys (never the keys themselves)", { type: [ApiKeyView] })
  @ApiResponse({ status: 404, type: SessionErrorBody })
  keys(@Param('id') id: string): Promise<ApiKeyAnswer[]> {
    return this.organizations.listKeys(id);
  }

  @Post(':id/keys')
  @MemoryOperation('organizations.keys.create', 'Create an API key; the answer holds the key, shown only this once', { body: ApiKeyBody, status: 201, type: CreatedApiKey })
  @ApiResponse({ status: 400, type: ValidationErrorBody })
  @ApiResponse({ status: 404, type: SessionErrorBody })
  createKey(@Param('id') id: string, @MemoryBody() body: ApiKeyBody): Promise<ApiKeyAnswer & { key: string }> {
    return this.organizations.createKey(id, body.name);
  }

  @Delete(':id/keys/:keyId')
  @MemoryOperation('organizations.keys.revoke', 'Revoke an API key: refused at once on every replica', { status: 204, description: 'Revoked' })
  @ApiResponse({ status: 404, type: SessionErrorBody })
  async revokeKey(@Param('id') id: string, @Param('keyId') keyId: string): Promise<void> {
    await this.organizations.revokeKey(id, keyId);
  }
}
