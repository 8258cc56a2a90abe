/**
 * ConfigService — the opencode-style config of an Instance.
 *
 *   get(instance): Promise<Config>            merged config (cached per directory until the instance is disposed)
 *   update(instance, patch): Promise<Config>   deep-merge `patch` into the project config file, dispose the instance, return the new merged config
 *   directories(instance): Promise<string[]>   existing config directories (global dir, ~/.opencode, .opencode dirs, OPENCODE_CONFIG_DIR)
 *   projectFile(instance): Promise<string>     the file PATCH /config writes
 *
 * Sources, lowest precedence first (objects deep-merge, `plugin`/`instructions` accumulate):
 * global `config.json`, `opencode.json`, `opencode.jsonc`; the `OPENCODE_CONFIG` file;
 * `opencode.jsonc`/`opencode.json` in each directory from the worktree down to the request directory
 * (only the directory itself outside git);
 * `OPENCODE_CONFIG_CONTENT`; each config directory's `opencode.json[c]` and its markdown
 * `agent/`, `mode/` and `command/` files (merged into `agent` and `command`); `OPENCODE_PERMISSION`.
 * Every file is JSONC with `{env:VAR}` / `{file:path}` substitution and is validated strictly against
 * the reference `Config` schema: a broken source throws ConfigInvalidError / ConfigJsonError (400,
 * `data.path` names the file, `data.issues[].path` the key), only on the routes that need config.
 */
import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { applyEdits, modify } from 'jsonc-parser';
import { AllowedDirectories, OUTSIDE_ALLOWED } from '../common/allowed-directories';
import { ValidationError, issue } from '../common/errors';
import { KeyedMutex } from '../common/keyed-mutex';
import type { Instance } from '../projects/instance.service';
import { InstanceService } from '../projects/instance.service';
import { ConfigInvalidError } from './config-errors';
import { configDirectories, globalConfigDirectory, worktreeChain } from './config-locations';
import { referenceConfigSchema } from './config-schema';
import { loadConfigFile, loadConfigText, parseJsonc, readOptional, substitute, validateConfig } from './config-source';
import { isPlainObject, JsonObject, mergeConfig } from './deep-merge';
import { MarkdownEntry, readMarkdownEntries } from './markdown';

export type PermissionAction = 'ask' | 'allow' | 'deny';

export interface PermissionConfig {
  edit?: PermissionAction;
  bash?: PermissionAction | Record<string, PermissionAction>;
  skill?: PermissionAction | Record<string, PermissionAction>;
  webfetch?: PermissionAction;
  doom_loop?: PermissionAction;
  external_directory?: PermissionAction;
}

/** The reference `AgentConfig` (unknown keys are agent options). */
export interface AgentConfig {
  model?: string;
  temperature?: number;
  top_p?: number;
  prompt?: string;
  tools?: Record<string, boolean>;
  disable?: boolean;
  description?: string;
  mode?: 'subagent' | 'primary' | 'all';
  color?: string;
  maxSteps?: number;
  permission?: PermissionConfig;
  [option: string]: unknown;
}

interface CommandConfig {
  template: string;
  description?: string;
  agent?: string;
  model?: string;
  subtask?: boolean;
}

export interface ProviderModelConfig {
  id?: string;
  name?: string;
  family?: string;
  release_date?: string;
  attachment?: boolean;
  reasoning?: boolean;
  temperature?: boolean;
  tool_call?: boolean;
  interleaved?: true | { field: 'reasoning_content' | 'reasoning_details' };
  cost?: {
    input: number;
    output: number;
    cache_read?: number;
    cache_write?: number;
    context_over_200k?: { input: number; output: number; cache_read?: number; cache_write?: number };
  };
  limit?: { context: number; output: number };
  modalities?: { input: string[]; output: string[] };
  experimental?: boolean;
  status?: 'alpha' | 'beta' | 'deprecated';
  options?: Record<string, unknown>;
  headers?: Record<string, string>;
  provider?: { npm: string };
  variants?: Record<string, Record<string, unknown>>;
}

export interface ProviderConfig {
  api?: string;
  name?: string;
  env?: string[];
  id?: string;
  npm?: string;
  models?: Record<string, ProviderModelConfig>;
  whitelist?: string[];
  blacklist?: string[];
  options?: { apiKey?: string; baseURL?: string; [option: string]: unknown };
}

/** The merged config (reference `Config`); only the members Keel reads are typed. */
export interface Config {
  model?: string;
  small_model?: string;
  default_agent?: string;
  username?: string;
  agent?: Record<string, AgentConfig>;
  mode?: Record<string, AgentConfig>;
  command?: Record<string, CommandConfig>;
  provider?: Record<string, ProviderConfig>;
  disabled_providers?: string[];
  enabled_providers?: string[];
  permission?: PermissionConfig;
  tools?: Record<string, boolean>;
  plugin?: string[];
  instructions?: string[];
  /** Automatic compaction of a long history and pruning of old tool outputs (both on unless false). */
  compaction?: { auto?: boolean; prune?: boolean };
  /** Where else to look for `SKILL.md` files (opencode 1.18). */
  skills?: { paths?: string[]; urls?: string[] };
  [key: string]: unknown;
}

const GLOBAL_FILES = ['config.json', 'opencode.json', 'opencode.jsonc'];
const PROJECT_FILES = ['opencode.jsonc', 'opencode.json'];

@Injectable()
export class ConfigService {
  private readonly cache = new Map<string, Promise<Config>>();
  private readonly writes = new KeyedMutex();

  constructor(
    private readonly instances: InstanceService,
    private readonly allowed: AllowedDirectories,
  ) {
    instances.onDispose((directory) => {
      this.cache.delete(directory);
    });
  }

  get(instance: Instance): Promise<Config> {
    let config = this.cache.get(instance.directory);
    if (!config) {
      config = this.load(instance);
      this.cache.set(instance.directory, config);
      // A broken file is reported on every call until it is fixed, not cached as a failure.
      const loading = config;
      loading.catch(() => {
        if (this.cache.get(instance.directory) === loading) this.cache.delete(instance.directory);
      });
    }
    return config;
  }

  /**
   * opencode 1.18's `references` (outside folders and git repositories offered as context). Keel's
   * config has no such key (the seed's schema refuses it), so there are none.
   */
  references(): never[] {
    return [];
  }

  directories(instance: Instance): Promise<string[]> {
    return configDirectories(instance.directory, instance.worktree);
  }

  /**
   * The file PATCH /config edits: the nearest existing `opencode.jsonc`/`opencode.json` from the
   * directory up to the worktree root (only the directory itself outside git), else a new
   * `<directory>/opencode.json`. Always a file the loader reads.
   */
  async projectFile(instance: Instance): Promise<string> {
    for (const dir of worktreeChain(instance.directory, instance.worktree).reverse()) {
      for (const name of PROJECT_FILES) {
        const path = join(dir, name);
        if ((await stat(path).catch(() => undefined))?.isFile()) return path;
      }
    }
    return join(instance.directory, 'opencode.json');
  }

  /**
   * Deep-merges `patch` into the project file, keeping its comments and layout (jsonc-parser edits),
   * refuses to write a result that would not load, writes atomically, then disposes the instance
   * (`server.instance.disposed`) so every module re-reads config, and returns the new merged config.
   * The file is written where it really is (a link to it stays a link), and only when that is inside
   * the allowed directories: a 400 naming `directory` otherwise, with nothing written.
   */
  async update(instance: Instance, patch: JsonObject): Promise<Config> {
    const file = await this.projectFile(instance);
    const target = await this.allowed.realLocation(file);
    if (target === undefined) {
      throw new ValidationError(
        [issue(['directory'], `the config file ${file} leads ${OUTSIDE_ALLOWED}`)],
        { directory: instance.directory },
      );
    }
    // Read-modify-write of one file is serialised, so concurrent PATCHes never lose each other's keys.
    await this.writes.run(target, () => this.writeMerged(file, target, patch));
    await this.instances.dispose(instance.directory);
    return this.get(instance);
  }

  /** `file` as the loader names it (for messages and `{file:}` paths), `target` its checked real location. */
  private async writeMerged(file: string, target: string, patch: JsonObject): Promise<void> {
    const tooLarge = (bytes: number) =>
      new ValidationError([issue([], `a config file may hold at most ${MAX_CONFIG_BYTES} bytes (this PATCH makes ${bytes})`)], null);
    const before = (await readOptional(target)) ?? '';
    const current = parseJsonc(before, file);
    let text = before.trim() === '' ? '{}\n' : before;
    const edits = leafEdits(current, patch, []);
    // Each edit re-reads the whole file: 200,000 keys merged into a map would hold the event loop for minutes.
    if (edits.length > MAX_PATCH_EDITS) {
      throw new ValidationError([issue([], `a config PATCH may change at most ${MAX_PATCH_EDITS} keys (this one changes ${edits.length})`)], null);
    }
    const patchBytes = Buffer.byteLength(JSON.stringify(patch));
    if (patchBytes > MAX_CONFIG_BYTES) throw tooLarge(patchBytes);
    for (const [path, value] of edits) text = setFormatted(text, path, value);
    if (Buffer.byteLength(text) > MAX_CONFIG_BYTES) throw tooLarge(Buffer.byteLength(text));
    validateConfig(parseJsonc(await substitute(text, file, dirname(file)), file), file);
    await writeAtomically(target, text);
  }

  private async load(instance: Instance): Promise<Config> {
    let config: Config = {};
    const merge = (source: JsonObject | undefined) => {
      if (source) config = mergeConfig(config, source);
    };
    const globalDir = globalConfigDirectory();
    for (const name of GLOBAL_FILES) merge(await loadConfigFile(join(globalDir, name)));
    if (process.env.OPENCODE_CONFIG) merge(await loadConfigFile(resolve(process.env.OPENCODE_CONFIG)));
    for (const dir of worktreeChain(instance.directory, instance.worktree)) {
      for (const name of PROJECT_FILES) merge(await loadConfigFile(join(dir, name)));
    }
    if (process.env.OPENCODE_CONFIG_CONTENT) {
      merge(await loadConfigText(process.env.OPENCODE_CONFIG_CONTENT, 'OPENCODE_CONFIG_CONTENT', instance.directory));
    }
    for (const dir of await this.directories(instance)) {
      if (dir !== globalDir) for (const name of PROJECT_FILES) merge(await loadConfigFile(join(dir, name)));
      merge(await markdownConfig(dir));
    }
    if (process.env.OPENCODE_PERMISSION) {
      merge(await loadConfigText(`{"permission": ${process.env.OPENCODE_PERMISSION}}`, 'OPENCODE_PERMISSION', instance.directory));
    }
    return {
      ...config,
      username: config.username ?? userInfo().username,
      keybinds: { ...referenceConfigSchema.keybindDefaults(), ...(config.keybinds as JsonObject | undefined) },
      agent: config.agent ?? {},
      mode: config.mode ?? {},
      // opencode 1.18 fills `command` too.
      command: config.command ?? {},
      plugin: config.plugin ?? [],
    };
  }
}

/** Markdown agents (`agent/`), modes (`mode/`, primary agents) and commands (`command/`) of one config directory. */
async function markdownConfig(dir: string): Promise<JsonObject> {
  const agent: Record<string, AgentConfig> = {};
  const mode: Record<string, AgentConfig> = {};
  const command: Record<string, CommandConfig> = {};
  const checked = <T>(entry: MarkdownEntry, value: JsonObject, schema: string, pointer = ''): T => {
    const issues = referenceConfigSchema.check(value, schema, pointer);
    if (issues.length > 0) throw new ConfigInvalidError(entry.path, issues);
    return value as T;
  };
  for (const entry of await readMarkdownEntries(dir, ['agent', 'agents'])) {
    agent[entry.name] = checked(entry, { ...entry.frontmatter, prompt: entry.body }, 'AgentConfig');
  }
  for (const entry of await readMarkdownEntries(dir, ['mode', 'modes'])) {
    mode[entry.name] = checked(entry, { mode: 'primary', ...entry.frontmatter, prompt: entry.body }, 'AgentConfig');
  }
  for (const entry of await readMarkdownEntries(dir, ['command', 'commands'])) {
    command[entry.name] = checked(entry, { ...entry.frontmatter, template: entry.body }, 'Config', '/properties/command/additionalProperties');
  }
  const result: JsonObject = {};
  if (Object.keys(agent).length > 0) result.agent = agent;
  if (Object.keys(mode).length > 0) result.mode = mode;
  if (Object.keys(command).length > 0) result.command = command;
  return result;
}

/** Keys one PATCH may set inside existing objects (a new file takes whole top-level values). */
const MAX_PATCH_EDITS = 1_000;
/**
 * Largest config file a PATCH may write. Every later request reads, parses and validates the file,
 * and each edit of a PATCH re-parses it: a 3 MB file made a PATCH of 30 keys take 15 s.
 */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** Paths and values to set so that `patch` is deep-merged into `current`. */
function leafEdits(current: unknown, patch: JsonObject, path: string[]): [string[], unknown][] {
  const edits: [string[], unknown][] = [];
  for (const [key, value] of Object.entries(patch)) {
    const existing = isPlainObject(current) ? current[key] : undefined;
    if (isPlainObject(value) && isPlainObject(existing) && Object.keys(value).length > 0) {
      for (const edit of leafEdits(existing, value, [...path, key])) edits.push(edit);
    } else {
      edits.push([[...path, key], value]);
    }
  }
  return edits;
}

const FORMATTING = { insertSpaces: true, tabSize: 2, eol: '\n' };

/**
 * `text` with `value` set at `path`, laid out as the file is. jsonc-parser formats an inserted value
 * in time quadratic in its size (an object of 10,000 keys took 8 s, 200,000 held the event loop for
 * minutes), so an object or array goes in as a placeholder string, formatted, then replaced by the
 * value as `JSON.stringify` indents it at the placeholder's indentation: linear, same layout.
 */
function setFormatted(text: string, path: string[], value: unknown): string {
  if (value === null || typeof value !== 'object') return applyEdits(text, modify(text, path, value, { formattingOptions: FORMATTING }));
  const token = JSON.stringify(`keel-placeholder-${randomBytes(12).toString('hex')}`);
  const marked = applyEdits(text, modify(text, path, JSON.parse(token), { formattingOptions: FORMATTING }));
  const at = marked.indexOf(token);
  const indent = /^[ \t]*/.exec(marked.slice(marked.lastIndexOf('\n', at) + 1, at))?.[0] ?? '';
  return marked.slice(0, at) + JSON.stringify(value, null, 2).replaceAll('\n', `\n${indent}`) + marked.slice(at + token.length);
}

/**
 * Write beside `path` (a real path: no links in it) and rename over it, keeping the file's mode. The
 * temp file is created exclusively (never through a link planted under its name), and its directory
 * is checked to be still where `path` is before the rename, so a directory swapped for a link in the
 * meantime gets nothing (the temp file is removed).
 */
async function writeAtomically(path: string, text: string): Promise<void> {
  const mode = (await stat(path).catch(() => undefined))?.mode ?? 0o644;
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text.endsWith('\n') ? text : `${text}\n`, { mode: mode & 0o777, flag: 'wx' });
    if ((await realpath(dirname(temp))) !== dirname(path)) {
      throw new ValidationError([issue(['directory'], `${dirname(path)} was moved while the config was written`)], {});
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
