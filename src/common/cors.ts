import type { CorsOptions } from '@nestjs/common/internal';
import type { OriginPolicy } from './request-origin';

/** The reference's CORS answers, for the origins the policy trusts (loopback, Tauri, `KEEL_CORS`). */
export function corsOptions(policy: OriginPolicy): CorsOptions {
  return {
    origin: (origin, callback) => callback(null, origin && policy.trusts(origin) ? origin : false),
    methods: ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE'],
    maxAge: 86400,
  };
}
