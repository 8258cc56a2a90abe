import { Injectable } from '@nestjs/common';
import { ValidationError, ValidationIssue, issue } from '../../common/errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../common/json-body';
import { checkRequest } from '../../common/validation/request-fields';
import { DocumentIngestService, ingestFields } from './document-ingest.service';
import { UploadFileFields } from './dto/document.dto';
import type { IngestResponse } from './dto/document.dto';

export interface UploadedBinary {
  buffer: Buffer;
  originalname: string;
  mimetype: string;
  size: number;
}

/** Multipart form fields arrive as strings (JSON strings for objects) or as bracket fields (already objects). */
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

/** `POST /v3/documents/file`: files are stored at once and read by the pipeline (unsupported types fail there). */
@Injectable()
export class FileUploadService {
  constructor(private readonly documents: DocumentIngestService) {}

  /** The form's fields are decoded (JSON in text fields), then checked as UploadFileFields. */
  async upload(org: string, file: UploadedBinary | undefined, raw: unknown): Promise<IngestResponse> {
    const form = { ...((raw ?? {}) as Record<string, unknown>) };
    if (!file) throw new ValidationError([issue(['file'], 'is required')], form);
    const issues: ValidationIssue[] = [];
    for (const key of ['metadata', 'filterByMetadata', 'containerTags']) {
      // JSON in a form field obeys the same depth cap as a JSON body (which body-parser enforces).
      if (typeof form[key] === 'string' && nestsDeeperThan(form[key], MAX_JSON_DEPTH)) {
        issues.push(issue([key], `JSON nests deeper than ${MAX_JSON_DEPTH} levels`));
        delete form[key];
      } else form[key] = decodeJsonField(form[key]);
    }
    if (typeof form.containerTags === 'string') form.containerTags = [form.containerTags];
    const { body, issues: fieldIssues } = checkRequest(UploadFileFields, form);
    issues.push(...fieldIssues);
    if (issues.length) throw new ValidationError(issues, form);
    const common = ingestFields(body);
    const { fileType, mimeType } = body;
    return this.documents.ingest(org, {
      ...common,
      title: common.title ?? file.originalname,
      content: '',
      source: 'file',
      file: { data: file.buffer, name: file.originalname || null, mimeType: mimeType ?? file.mimetype ?? null, fileType: fileType ?? null },
    });
  }
}
