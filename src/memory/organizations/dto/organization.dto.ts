import type { ApiPropertyOptions } from '@nestjs/swagger';
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
