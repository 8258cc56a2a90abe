import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';

/**
 * Express sends a bare `true` or `null` as text; the reference answers JSON (`true`, `null`).
 * Objects are already JSON; `undefined` stays an empty body (204s, hand-written responses).
 */
@Injectable()
export class JsonResponseInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((value: unknown) => {
        if (value === undefined || (typeof value === 'object' && value !== null)) return value;
        const res = context.switchToHttp().getResponse<Response>();
        if (!res.headersSent) res.type('application/json');
        return JSON.stringify(value);
      }),
    );
  }
}
