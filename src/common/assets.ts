import { join } from 'node:path';

/**
 * A data file shipped with the code (`<folder>/<file>`, copied beside the compiled modules by
 * `scripts/build-to.sh`). Resolved from this module's folder so it is found the same way from src/
 * (tests), dist/<folder>/ and the start-up bundle in dist/bundle/.
 */
export function assetPath(folder: string, file: string): string {
  return join(__dirname, '..', folder, file);
}
