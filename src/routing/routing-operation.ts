import { applyDecorators, Controller, Type } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';

/** A routing controller: its /doc tag, its path, and the server password (HTTP Basic) it needs. */
export const RoutingController = (tag: string, path?: string): ClassDecorator =>
  applyDecorators(ApiTags(tag), ApiBasicAuth('basic'), Controller(path ?? '/'));

interface OperationDoc {
  /** The request body's class. */
  body?: Type<unknown>;
  /** The status of the answer (200 unless given). */
  status?: number;
  description?: string;
}

/** A routing operation's /doc entry: its operationId, its answer's class (in an array for a list), its request body. */
export const RoutingOperation = (
  operationId: string,
  answer: Type<unknown> | [Type<unknown>],
  { body, status = 200, description }: OperationDoc = {},
): MethodDecorator =>
  applyDecorators(
    ApiOperation({ operationId, description }),
    ...(body ? [ApiBody({ type: body })] : []),
    ApiResponse({ status, type: answer }),
  );
