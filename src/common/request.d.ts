import type { Instance } from '../projects/instance.service';
import type { Surface } from './surface';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by DirectoryMiddleware on session-surface routes. */
    instance?: Instance;
    /** Request id, echoed in `x-request-id` and every log line of the request. */
    id?: string;
    /** The surface the request addresses, decided once on arrival (see surfaceOf). */
    surface?: Surface;
    /** Memory surface: the organization of the request's API key (set by the authenticator). */
    orgId?: string;
    /** The response is an event stream (logged when it opened, and as `stream closed`). */
    streaming?: boolean;
    /** The JSON body's text holds no `\u0000` escape, so no string or key parsed from it holds a NUL (set by the JSON parser's verify hook). */
    nulFreeJson?: boolean;
    /** The body was read as JSON, its type being `application/json` (set by the JSON parser's verify hook). */
    jsonBody?: boolean;
  }
}
