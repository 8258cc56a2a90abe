import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';

export const OPERATION_ID = 'keel:operationId';

/**
 * Marks a session-surface handler as the reference operation `operationId`: its request is
 * validated against the reference OpenAPI, and `/doc` documents it with the reference schemas.
 */
export function Operation(operationId: string): MethodDecorator {
  return applyDecorators(SetMetadata(OPERATION_ID, operationId), ApiExcludeEndpoint());
}
