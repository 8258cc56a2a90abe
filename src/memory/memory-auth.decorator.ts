import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';

/** `/doc`: a memory route takes an API key as `Authorization: Bearer` or as `x-api-key` (either one). */
export function MemoryApiAuth(): ClassDecorator & MethodDecorator {
  return applyDecorators(ApiBearerAuth('bearer'), ApiSecurity('apiKey'));
}
