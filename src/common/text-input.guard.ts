import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { issue, ValidationError, ValidationIssue } from './errors';

/**
 * One rule on every surface and both engines: text the client sends (path ids, query values, body
 * strings and keys) may not contain U+0000. PostgreSQL cannot store it in text or jsonb and SQLite
 * would, so it is refused with a 400 naming the field instead of a 500 on one engine only.
 */
export const NUL_MESSAGE = 'must not contain NUL (U+0000) characters';

/**
 * Issues for every string (and object key) under `value` that holds a NUL, each with its path. One
 * path is kept as a stack and copied only for an issue: a body of 200,000 keys costs no 200,000 arrays.
 */
export function nulIssues(value: unknown, path: (string | number)[] = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const at = [...path];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.includes('\0')) issues.push(issue([...at], NUL_MESSAGE, 'invalid_string'));
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        at.push(i);
        walk(v[i]);
        at.pop();
      }
    } else if (v !== null && typeof v === 'object' && !ArrayBuffer.isView(v)) {
      for (const key in v) {
        if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
        at.push(key);
        if (key.includes('\0')) issues.push(issue([...at], `key ${NUL_MESSAGE}`, 'invalid_string'));
        walk((v as Record<string, unknown>)[key]);
        at.pop();
      }
    }
  };
  walk(value);
  return issues;
}

const ITEMS_CHECKED_BY_HANDLER = 'keel:items-checked-by-handler';

/**
 * Marks a handler whose body holds a list of items it validates one by one (a batch): the guard
 * leaves that list to it, so one bad item fails alone instead of the whole request.
 */
export const ItemsCheckedByHandler = (field: string) => SetMetadata(ITEMS_CHECKED_BY_HANDLER, field);

/** Global guard applying the NUL rule to every route's path parameters, query and JSON body. */
@Injectable()
export class TextInputGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): true {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    const params = nulIssues(req.params ?? {});
    if (params.length) throw new ValidationError(params, req.params);
    const query = nulIssues(req.query ?? {});
    if (query.length) throw new ValidationError(query, req.query);
    if (req.nulFreeJson) return true;
    const itemsField = this.reflector.get<string | undefined>(ITEMS_CHECKED_BY_HANDLER, context.getHandler());
    const body: unknown = req.body;
    const checked = itemsField && body && typeof body === 'object' && !Array.isArray(body) ? { ...body, [itemsField]: undefined } : body;
    const issues = nulIssues(checked);
    if (issues.length) throw new ValidationError(issues, body);
    return true;
  }
}
