declare module 'virtual:traefik-validators' {
  import type { ValidateFunction } from 'ajv';
  /** A validator per middleware and service definition of Traefik's schema, compiled at build time (console/traefik-validators.ts). */
  export const validators: Record<string, ValidateFunction | undefined>;
}
