import { applyDecorators, Controller, HttpCode, Type } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiOperation,
  ApiResponse,
  ApiResponseMetadata,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { ErrorBody } from './documents/dto/document.dto';

/**
 * A memory-surface controller: its path and /doc tag, its API key (taken as `Authorization: Bearer` or
 * as `x-api-key`, either one) and the error answers its routes share, each an ErrorBody.
 */
export function MemoryController(options: {
  path?: string;
  tag: string;
  errors?: { status: number; description?: string }[];
}): ClassDecorator {
  const errors = (options.errors ?? []).map((error) => ApiResponse({ ...error, type: ErrorBody }));
  return applyDecorators(
    ApiTags(options.tag),
    ApiBearerAuth('bearer'),
    ApiSecurity('apiKey'),
    ...errors,
    Controller(options.path ?? '/'),
  );
}

/** What a memory operation takes and answers: its body's DTO, and its success status with the answer's DTO or description. */
interface OperationShape {
  body?: Type;
  /** No body at all is accepted (MemoryBody's `optional`). */
  optionalBody?: boolean;
  /** 200 unless given (Nest would answer 201 to every POST). */
  status?: number;
  type?: ApiResponseMetadata['type'];
  description?: string;
}

/** A memory-surface handler's operationId and summary, its body and its success answer, in `/doc` and in the status it answers. */
export function MemoryOperation(
  operationId: string,
  summary: string,
  { body, optionalBody, status = 200, type, description }: OperationShape,
): MethodDecorator {
  return applyDecorators(
    HttpCode(status),
    ApiOperation({ operationId, summary }),
    ...(body ? [ApiBody({ type: body, ...(optionalBody ? { required: false } : {}) })] : []),
    ApiResponse({ status, type, description }),
  );
}
