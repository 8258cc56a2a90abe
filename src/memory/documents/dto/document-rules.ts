import type { Type } from '@nestjs/common';
import type { ApiPropertyOptions } from '@nestjs/swagger';
import { issue, ValidationIssue } from '../../../common/errors';
import { checkRequest, isJsonObject } from '../../../common/validation/request-fields';
import { LIMITS, MemoryField } from '../../validation';
import { ConversationMessage, validateMessages } from '../conversation';

/** Rules of single document requests (the shared ones are in memory/validation.ts). */

/** A field that must not be sent (null counts as not sent); /doc says so with `description`. */
export const Absent = (message: string, description: string) =>
  MemoryField({ type: 'string', nullable: true, description }, 'absent', (check, value, at) => {
    if (value !== undefined && value !== null) check.fail(at, message);
    return undefined;
  });

/** A batch item as the handler receives it: the document, or what is wrong with it (a bad item fails alone). */
export type BatchItem<T> = { document: T; issues?: undefined } | { document?: undefined; issues: ValidationIssue[] };

/**
 * A batch's items: an array of 1 to LIMITS.batchItems entries (or the whole request is refused), each
 * an object or a string (its content) checked as `item`, its issues kept with it instead of failing the batch.
 */
export const BatchItems = <T extends object>(item: Type<T>, api: ApiPropertyOptions) =>
  MemoryField<BatchItem<T>[]>(
    { minItems: 1, maxItems: LIMITS.batchItems, ...api },
    'batchItems',
    (check, value, at) => {
      if (!Array.isArray(value) || value.length < 1 || value.length > LIMITS.batchItems) {
        check.fail(at, Array.isArray(value) ? `must hold 1 to ${LIMITS.batchItems} items` : 'is required and must be an array');
        return undefined;
      }
      return value.map((entry: unknown, i): BatchItem<T> => {
        const fields = typeof entry === 'string' ? { content: entry } : isJsonObject(entry) ? entry : undefined;
        if (!fields) return { issues: [issue([...at, i], 'must be an object or a string')] };
        const { body, issues } = checkRequest(item, fields, [...at, i]);
        return issues.length ? { issues } : { document: body };
      });
    },
    false,
  );

/** `DELETE /v3/documents/bulk`'s ids: 1 to 100 non-empty strings (null is refused, unlike elsewhere). */
export const BulkIds = (api: ApiPropertyOptions) =>
  MemoryField(api, 'bulkIds', (check, value, at) => {
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.length < 1 || value.length > 100) {
      check.fail(at, 'must be an array of 1 to 100 ids');
      return undefined;
    }
    return value.map((id, i) => check.string(id, [...at, i], { required: true, min: 1 }) ?? '');
  });

const CONVERSATION_ID = { required: true, min: 1, max: 255 };

/** Sent as conversationId, or (when that is not sent) as customId: one of them is checked, where it was sent. */
const aliasUsed = (body: object, conversationId: unknown) => conversationId === undefined && (body as { customId?: unknown }).customId !== undefined;

export const ConversationId = (api: ApiPropertyOptions) =>
  MemoryField(
    api,
    'conversationId',
    (check, value, at, body) => (aliasUsed(body, value) ? undefined : check.string(value ?? (body as { customId?: unknown }).customId, at, CONVERSATION_ID)),
    false,
  );

export const ConversationIdAlias = (api: ApiPropertyOptions) =>
  MemoryField(api, 'conversationIdAlias', (check, value, at, body) =>
    aliasUsed(body, (body as { conversationId?: unknown }).conversationId) ? check.string(value, at, CONVERSATION_ID) : (value as string | undefined),
  );

/** A conversation's turns: a non-empty array of `{role, content}` (OpenAI-style parts, tool calls and results). */
export const Messages = (api: ApiPropertyOptions) =>
  MemoryField<ConversationMessage[]>(api, 'messages', (check, value) => validateMessages(value, check), false);
