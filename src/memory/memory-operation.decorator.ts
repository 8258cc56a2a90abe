import { applyDecorators, HttpCode, Type } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiResponseMetadata } from '@nestjs/swagger';

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
