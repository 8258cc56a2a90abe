import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse, ParseError, printParseErrorCode } from 'jsonc-parser';
import { ConfigInvalidError, ConfigJsonError } from './config-errors';
import { referenceConfigSchema } from './config-schema';
import { isPlainObject, JsonObject } from './deep-merge';

/** Reads a file, or undefined when it does not exist. */
export async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
    throw error;
  }
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}

/**
 * `{env:VAR}` and `{file:path}` substitution on the raw text, as the reference does. Files are
 * relative to the config file's directory (`~` expands to home); their content is inserted as a
 * JSON string body. Lines that are `//` comments are left alone.
 */
export async function substitute(text: string, source: string, baseDir: string): Promise<string> {
  let result = text.replace(/\{env:([^}]+)\}/g, (_m, name: string) => process.env[name] ?? '');
  const matches = [...result.matchAll(/\{file:([^}]+)\}/g)];
  for (const match of matches) {
    const lineStart = result.lastIndexOf('\n', match.index) + 1;
    if (result.slice(lineStart, match.index).trim().startsWith('//')) continue;
    const target = expandHome(match[1]);
    const path = isAbsolute(target) ? target : resolve(baseDir, target);
    const content = await readOptional(path);
    if (content === undefined) throw new ConfigJsonError(source, `{file:${match[1]}} refers to ${path}, which does not exist`);
    const inserted = JSON.stringify(content.trim()).slice(1, -1);
    result = result.replace(match[0], () => inserted); // a function: `$&` in the file stays text
  }
  return result;
}

/** JSONC text (comments, trailing commas) to an object, or ConfigJsonError naming the offset. */
export function parseJsonc(text: string, source: string): JsonObject {
  const errors: ParseError[] = [];
  const value: unknown = text.trim() === '' ? {} : parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0];
    const line = text.slice(0, first.offset).split('\n').length;
    throw new ConfigJsonError(source, `${printParseErrorCode(first.error)} at line ${line}`);
  }
  if (!isPlainObject(value)) throw new ConfigJsonError(source, 'the top level must be an object');
  return value;
}

/** Validate against the reference `Config`; ConfigInvalidError names the source and the key path. */
export function validateConfig(value: JsonObject, source: string): JsonObject {
  const issues = referenceConfigSchema.check(value, 'Config');
  if (issues.length > 0) throw new ConfigInvalidError(source, issues);
  return value;
}

/** One config file: read, substituted, parsed, validated. Undefined when the file is absent. */
export async function loadConfigFile(path: string): Promise<JsonObject | undefined> {
  const text = await readOptional(path);
  return text === undefined ? undefined : loadConfigText(text, path, dirname(path));
}

/** Config text that is not a file (`OPENCODE_CONFIG_CONTENT`): substitutions relative to `baseDir`. */
export async function loadConfigText(text: string, source: string, baseDir: string): Promise<JsonObject> {
  return validateConfig(parseJsonc(await substitute(text, source, baseDir), source), source);
}
