import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';

/**
 * Express sends a bare `true`, number or string as text and `null` as an empty body; the reference
 * answers JSON (`true`, `null`). Objects already go out as JSON and `undefined` stays an empty body
 * (204s). Done where Nest writes the reply rather than in an interceptor, which would put an
 * Observable pipeline on every request.
 */
export class JsonReplyAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (body === undefined || (typeof body === 'object' && body !== null)) return super.reply(response, body, statusCode);
    if (statusCode !== undefined) response.status(statusCode);
    return response.type('application/json').send(JSON.stringify(body));
  }
}
