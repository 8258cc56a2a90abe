import type { Type } from '@nestjs/common';

/**
 * The feature modules of the three surfaces. Each module owns its folder; adding one here is
 * the only edit outside it.
 */
export const FEATURE_MODULES: Type[] = [];
