import { Injectable } from '@nestjs/common';
import { ValidationError, issue } from '../../common/errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../common/json-body';
import { Checker } from '../validation';
import { DocumentsService, IngestResult } from './documents.service';

export interface UploadedBinary {
  buffer: Buffer;
  originalname: string;
  mimetype: string;
  size: number;
}

const FILE_TYPES = ['text', 'pdf', 'tweet', 'google_doc', 'google_slide', 'google_sheet', 'image', 'video', 'notion_doc', 'webpage', 'onedrive'] as const;

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
  constructor(private readonly documents: DocumentsService) {}

  async upload(file: UploadedBinary | undefined, raw: unknown): Promise<IngestResult> {
    const form = { ...((raw ?? {}) as Record<string, unknown>) };
    if (!file) throw new ValidationError([issue(['file'], 'is required')], form);
    const check = new Checker();
    for (const key of ['metadata', 'filterByMetadata', 'containerTags']) {
      // JSON in a form field obeys the same depth cap as a JSON body (which body-parser enforces).
      if (typeof form[key] === 'string' && nestsDeeperThan(form[key], MAX_JSON_DEPTH)) {
        check.fail([key], `JSON nests deeper than ${MAX_JSON_DEPTH} levels`);
        delete form[key];
      } else form[key] = decodeJsonField(form[key]);
    }
    if (typeof form.containerTags === 'string') form.containerTags = [form.containerTags];
    const common = this.documents.parseCommon(check, form);
    const fileType = check.oneOf(form.fileType, ['fileType'], FILE_TYPES);
    const mimeType = check.string(form.mimeType, ['mimeType'], { max: 255 });
    if ((fileType === 'image' || fileType === 'video') && !mimeType) check.fail(['mimeType'], `is required when fileType is ${fileType}`);
    check.throwIfAny(form);
    return this.documents.ingest({
      ...common,
      title: common.title ?? file.originalname,
      content: '',
      source: 'file',
      file: { data: file.buffer, name: file.originalname || null, mimeType: mimeType ?? file.mimetype ?? null, fileType: fileType ?? null },
    });
  }
}
