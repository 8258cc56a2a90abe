import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { UnknownFieldsRefused } from '../../../common/validation/request-fields';
import { MemoryField } from '../../validation';

const NAME_MAX = 100;

/** A name of 1 to NAME_MAX characters, not blank; the handler receives it trimmed. */
const Name = (api: ApiPropertyOptions) =>
  MemoryField(
    { maxLength: NAME_MAX, ...api },
    'name',
    (check, value, at) => {
      const name = check.string(value, at, { required: true, max: NAME_MAX });
      if (name !== undefined && !name.trim()) check.fail(at, 'must not be blank');
      return name?.trim();
    },
    false,
  );

const onlyName = () => 'is not a field (the only field is name)';

@UnknownFieldsRefused(onlyName)
export class OrganizationBody {
  @Name({ description: 'The organization' + "'s name (1 to 100 characters)", example: 'Team Search' }) name!: string;
}

@UnknownFieldsRefused(onlyName)
export class ApiKeyBody {
  @Name({ description: 'What the key is for (1 to 100 characters)', example: 'search backend' }) name!: string;
}

/** The answers of `/keel/organizations`. */
export class OrganizationView {
  @ApiProperty({ example: 'org_3Fq9XkT2mNpL8vWc' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The default organization (KEEL_API_KEYS, requests without a key, data from before organizations)' })
  isDefault!: boolean;
  @ApiProperty({ type: 'integer' }) keyCount!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class ApiKeyView {
  @ApiProperty({ example: 'key_8hG2LmQ0pZx4Rt7Y' }) id!: string;
  @ApiProperty() orgId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The first characters of the key, to tell keys apart', example: 'keel_a1B2c3D4' })
  prefix!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Last memory request with the key (to the minute)' })
  lastUsedAt!: string | null;
}

export class CreatedApiKey extends ApiKeyView {
  @ApiProperty({ description: 'The key itself: shown in this answer only (Keel keeps its SHA-256 digest)' })
  key!: string;
}
