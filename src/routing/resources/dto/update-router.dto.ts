import {
  CommaList,
  IntegerBetween,
  OptionalText,
  RequiredBoolean,
  RequiredObject,
} from '../../routing-validation';
import { issue } from '../../../common/errors';

export const MAX_PRIORITY = 2_147_483_647;
const ENTRYPOINT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const DOMAIN = /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export class UpdateHttpConfigDto {
  @CommaList(
    { description: 'Comma-separated entry points; empty means websecure', example: 'websecure' },
    ENTRYPOINT,
    'entry point name',
  )
  entrypoints?: string;
}

export class UpdateTlsConfigDto {
  @CommaList(
    { description: 'Comma-separated extra certificate domains', example: 'www.example.com' },
    DOMAIN,
    'domain name',
  )
  tls_domains?: string;
}

export class UpdateTcpConfigDto {
  @RequiredBoolean()
  tcp_enabled: boolean;

  @CommaList({ description: 'Comma-separated; empty means tcp' }, ENTRYPOINT, 'entry point name', true)
  tcp_entrypoints?: string;

  @OptionalText({ description: 'HostSNI(…) rule; empty means HostSNI(`<host>`)' }, (rule) =>
    rule.trim() && !/^HostSNI(Regexp)?\(/.test(rule.trim())
      ? 'must start with HostSNI(…) or HostSNIRegexp(…)'
      : undefined,
  )
  tcp_sni_rule?: string;
}

export class UpdateHeadersConfigDto {
  @RequiredObject(
    {
      type: 'object',
      additionalProperties: { type: 'string' },
      example: { 'X-Forwarded-Proto': 'https' },
    },
    (headers, _body, at) =>
      Object.entries(headers as Record<string, unknown>).flatMap(([name, value]) =>
        !HEADER_NAME.test(name)
          ? [issue([...at, name], 'is not a valid header name', 'invalid_value')]
          : typeof value !== 'string'
            ? [issue([...at, name], 'must be a string', 'invalid_value')]
            : [],
      ),
  )
  custom_headers: Record<string, string>;
}

export class UpdatePriorityConfigDto {
  @IntegerBetween({ minimum: 1, example: 200 }, 1, MAX_PRIORITY)
  router_priority: number;
}
