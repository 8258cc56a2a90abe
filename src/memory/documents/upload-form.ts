import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { issue, ValidationError, ValidationIssue } from '../../common/errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../common/json-body';
import { checkRequest } from '../../common/validation/request-fields';
import { UploadFileFields } from './dto/document.dto';

/** The uploaded file as multer hands it over (in memory, at most LIMITS.fileBytes). */
export interface UploadedBinary {
  buffer: Buffer;
  originalname: string;
  mimetype: string;
  size: number;
}

/** `POST /v3/documents/file`'s form, checked: the file and its typed fields. */
export interface UploadForm {
  file: UploadedBinary;
  fields: UploadFileFields;
}

/** The form fields that may hold JSON text (an object or a list), as supermemory's clients send them. */
const JSON_FIELDS = ['metadata', 'filterByMetadata', 'containerTags'];

/** A text field holding a JSON object or list, parsed; anything else (bracket fields arrive parsed) as it is. */
function decodeJsonField(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (!/^[[{]/.test(trimmed)) return value;
  try {
    return JSON.parse(trimmed);
  } catch {
    return value;
  }
}

/**
 * A multipart form as UploadFileFields: the file is required, JSON text fields are decoded (within
 * the depth a JSON body may nest), and a single `containerTags` is a list of one. A bad form throws
 * the memory surface's 400 naming each field.
 */
function checkUploadForm(file: UploadedBinary | undefined, raw: unknown): UploadForm {
  const form = { ...((raw ?? {}) as Record<string, unknown>) };
  if (!file) throw new ValidationError([issue(['file'], 'is required')], form);
  const issues: ValidationIssue[] = [];
  for (const key of JSON_FIELDS) {
    if (typeof form[key] === 'string' && nestsDeeperThan(form[key], MAX_JSON_DEPTH)) {
      issues.push(issue([key], `JSON nests deeper than ${MAX_JSON_DEPTH} levels`));
      delete form[key];
    } else form[key] = decodeJsonField(form[key]);
  }
  if (typeof form.containerTags === 'string') form.containerTags = [form.containerTags];
  const { body: fields, issues: fieldIssues } = checkRequest(UploadFileFields, form);
  issues.push(...fieldIssues);
  if (issues.length) throw new ValidationError(issues, form);
  return { file, fields };
}

/** The checked upload form of the request (after multer's FileInterceptor has read it). */
export const CheckedUploadForm = createParamDecorator((_: unknown, context: ExecutionContext): UploadForm => {
  const req = context.switchToHttp().getRequest<Request & { file?: UploadedBinary }>();
  return checkUploadForm(req.file, req.body);
});
