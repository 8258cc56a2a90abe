import type { ApiPropertyOptions } from '@nestjs/swagger';
import { issue, ValidationIssue } from '../../../common/errors';
import { absent, checkRequest, Field, isJsonObject } from '../../../common/validation/request-fields';
import { OptionalText, RequiredText } from '../../routing-validation';

const SOURCE_TYPES = ['pangolin', 'traefik'];

/** A base URL as stored: trimmed, without trailing slashes. */
export function baseUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

/** Why `url` cannot be a data source's base URL: paths are appended to it, so it is scheme, host, port and path only. */
function baseUrlProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return 'must be an http(s) URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http(s) URL';
  if (url.includes('?') || url.includes('#'))
    return 'must be a base URL without a query or fragment (paths such as /traefik-config are appended to it)';
  if (parsed.username || parsed.password) return 'must not hold credentials: send them as basic_auth';
  return undefined;
}

const given = (body: object, field: string) => !absent((body as Record<string, unknown>)[field]);

/**
 * v3's config.json and API say `basic_auth`; the UI sends `basicAuth`: either, once. A credentials
 * object is checked where it was sent, the conflict is reported on basicAuth.
 */
function credentials(spelling: 'basic_auth' | 'basicAuth') {
  return (value: unknown, body: object, at: (string | number)[]): ValidationIssue[] => {
    if (!given(body, spelling)) return [];
    if (given(body, 'basic_auth') && given(body, 'basicAuth'))
      return spelling === 'basicAuth'
        ? [issue(at, 'send the credentials once, as basic_auth or basicAuth', 'invalid_value')]
        : [];
    return isJsonObject(value)
      ? checkRequest(BasicAuthDto, value, at).issues
      : [issue(at, 'is required and must be a JSON object', 'invalid_type')];
  };
}

const CredentialsField = (api: ApiPropertyOptions, spelling: 'basic_auth' | 'basicAuth') =>
  Field(api, 'credentials', credentials(spelling), true);

class BasicAuthDto {
  @OptionalText({ required: true })
  username: string;

  @OptionalText({
    required: true,
    description: 'Masked as •••••••• in answers; sending the mask back keeps the stored password',
  })
  password: string;
}

export class DataSourceDto {
  @RequiredText({ enum: SOURCE_TYPES }, (type) =>
    SOURCE_TYPES.includes(type) ? undefined : `unsupported data source type: ${type} (pangolin or traefik)`,
  )
  type: 'pangolin' | 'traefik';

  // Judged as stored: a URL of slashes only would be stored empty.
  @RequiredText({ example: 'http://pangolin:3001/api/v1' }, (url) => baseUrlProblem(baseUrl(url)))
  url: string;

  @CredentialsField({ type: BasicAuthDto }, 'basic_auth')
  basic_auth?: BasicAuthDto;

  @CredentialsField(
    {
      type: BasicAuthDto,
      description:
        'Same as basic_auth (the spelling middleware-manager UIs send); stored and answered as basic_auth',
    },
    'basicAuth',
  )
  basicAuth?: BasicAuthDto;
}

export class SetActiveDataSourceDto {
  @RequiredText({ example: 'pangolin' })
  name: string;
}
