import { domainError } from '../common/errors';

/** One problem in a config source: the file (or env variable) and the key path inside it. */
export interface ConfigIssue {
  path: (string | number)[];
  message: string;
}

/**
 * A config source that parses but breaks the reference `Config` schema (or a markdown agent/command
 * whose frontmatter does). 400, so a broken file never turns into a 500 on the routes that read it.
 */
export class ConfigInvalidError extends domainError(400, 'ConfigInvalidError') {
  constructor(source: string, issues: ConfigIssue[]) {
    const first = issues[0];
    const where = first && first.path.length > 0 ? `${source}: ${first.path.join('.')}` : source;
    super(`Invalid config ${where}: ${first?.message ?? 'invalid'}`, { path: source, issues });
  }
}

/** A config source that is not JSONC (or a `{file:…}` reference that cannot be read). */
export class ConfigJsonError extends domainError(400, 'ConfigJsonError') {
  constructor(source: string, message: string) {
    super(`Invalid JSON in config ${source}: ${message}`, { path: source });
  }
}
