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
    /** The response is an event stream (logged when it opened, and as `stream closed`). */
    streaming?: boolean;
  }
}
