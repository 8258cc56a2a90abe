import type { CorsOptions } from '@nestjs/common/internal';

const LOCAL_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/;

/** The reference's CORS rule: local origins, the Tauri app, and the configured list. */
export function corsOptions(extraOrigins: string[]): CorsOptions {
  return {
    origin: (origin, callback) => {
      if (!origin) return callback(null, false);
      const allowed =
        LOCAL_ORIGIN.test(origin) ||
        origin === 'tauri://localhost' ||
        origin === 'http://tauri.localhost' ||
        extraOrigins.includes(origin);
      callback(null, allowed ? origin : false);
    },
    methods: ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE'],
    maxAge: 86400,
  };
}
