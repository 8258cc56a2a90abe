import { applyDecorators, HttpCode, SetMetadata } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { referenceSuccessStatus } from './reference-document';

export const OPERATION_ID = 'keel:operationId';

/**
 * Marks a session-surface handler as the reference operation `operationId`: its request is
 * validated against the reference OpenAPI, `/doc` documents it with the reference schemas, and it
 * answers the reference's success status (Nest would answer 201 to every POST otherwise).
 */
export function Operation(operationId: string): MethodDecorator {
  const status = referenceSuccessStatus(operationId);
  return applyDecorators(SetMetadata(OPERATION_ID, operationId), ApiExcludeEndpoint(), ...(status === undefined ? [] : [HttpCode(status)]));
}
