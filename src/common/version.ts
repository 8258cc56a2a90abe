/** Keel's version, from package.json when built (the bundle inlines it). */
export const KEEL_VERSION: string = (require('../../package.json') as { version: string }).version;
