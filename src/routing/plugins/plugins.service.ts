import { Inject, Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, normalize } from 'node:path';
import { AllowedDirectories, OUTSIDE_ALLOWED } from '../../common/allowed-directories';
import { BadRequestError, issue, NotFoundError, ValidationError } from '../../common/errors';
import { KeyedMutex } from '../../common/keyed-mutex';
import { replaceFileSync } from '../../common/paths';
import { ROUTING_SETTINGS } from '../middleware-manager.settings';
import type { RoutingSettings } from '../middleware-manager.settings';
import { Catalogue, PluginCatalogue } from './plugin-catalogue.service';
import {
  ConfigPathDto,
  InstallPluginDto,
  PluginChangedDto,
  PluginDto,
  RemovePluginDto,
  SetConfigPathDto,
  VERSION,
} from './dto/plugin.dto';
import { RoutingEvents } from '../routing-events';
import { DeclaredPlugin, pluginKey, TraefikStaticConfig } from './traefik-static-config';

const SETTINGS_FILE = 'plugin-hub.json';

/**
 * `/api/plugins`: middleware-manager v3's Plugin Hub. A plugin is installed when it is declared under
 * `experimental.plugins` of Traefik's static configuration file, whose path is kept in the routing
 * settings (`plugin-hub.json` beside `config.json`) and must lie inside KEEL_ALLOWED_DIRECTORIES.
 */
@Injectable()
export class PluginsService {
  private readonly writes = new KeyedMutex();
  private storedPath?: string | null;

  constructor(
    private readonly catalogue: PluginCatalogue,
    private readonly allowed: AllowedDirectories,
    private readonly events: RoutingEvents,
    @Inject(ROUTING_SETTINGS) private readonly settings: RoutingSettings,
  ) {}

  private get settingsFile(): string {
    return join(this.settings.configDir, SETTINGS_FILE);
  }

  /** The path set through the API, else the environment's; undefined when neither. */
  configPath(): string | undefined {
    if (this.storedPath === undefined) {
      try {
        const saved = JSON.parse(readFileSync(this.settingsFile, 'utf8')) as {
          traefik_static_config_path?: unknown;
        };
        this.storedPath =
          typeof saved.traefik_static_config_path === 'string' ? saved.traefik_static_config_path : null;
      } catch {
        this.storedPath = null;
      }
    }
    return this.storedPath ?? this.settings.traefikStaticConfigPath;
  }

  getConfigPath(): ConfigPathDto {
    const path = this.configPath();
    if (path) return { path };
    return {
      path: '',
      message:
        'No Traefik static configuration path is set: set one with PUT /api/plugins/configpath or KEEL_MM_TRAEFIK_STATIC_CONFIG_PATH.',
    };
  }

  async setConfigPath({ path: value }: SetConfigPathDto): Promise<ConfigPathDto> {
    const refuse = (message: string) =>
      new ValidationError([issue(['path'], message, 'invalid_value')], { path: value });
    if (value.includes('\0')) throw refuse('path must not contain NUL characters');
    if (!isAbsolute(value)) throw refuse('path must be an absolute path');
    const path = normalize(value);
    if (path === '/' || path.endsWith('/')) throw refuse('path must name a file, not a directory');
    if (Buffer.byteLength(path) > 4000 || Buffer.byteLength(basename(path)) > 255)
      throw refuse('path is too long');
    if (!['.yml', '.yaml'].includes(extname(path).toLowerCase()))
      throw refuse('path must name a YAML file (.yml or .yaml): Keel edits YAML static configurations only');
    const directory = await this.allowed.real(dirname(path), 'path', value);
    const target = await this.allowed.realLocation(join(directory, basename(path)));
    if (!target) throw refuse(`path leads ${OUTSIDE_ALLOWED} through a symbolic link`);
    const existing = await lstat(target).catch(() => undefined);
    if (existing && !existing.isFile()) throw refuse('path exists and is not a regular file');
    replaceFileSync(
      this.settingsFile,
      `${JSON.stringify({ traefik_static_config_path: path }, null, 2)}\n`,
      0o600,
    );
    this.storedPath = path;
    this.events.publish('plugins.configpath.updated', { path });
    return {
      message: `Traefik static configuration path set to ${path} (saved in the routing settings).`,
      path,
    };
  }

  /** The configured file's real location, re-checked on every use (a link may have changed since it was set). */
  private async configFile(): Promise<string> {
    const path = this.configPath();
    if (!path)
      throw new BadRequestError(
        'path: no Traefik static configuration file is set; set it first with PUT /api/plugins/configpath',
      );
    const real = await this.allowed.realLocation(path);
    if (!real)
      throw new BadRequestError(
        `path: the Traefik static configuration ${path} is ${OUTSIDE_ALLOWED} (KEEL_ALLOWED_DIRECTORIES)`,
      );
    return real;
  }

  async list(): Promise<{ plugins: PluginDto[]; catalogue: Catalogue }> {
    const catalogue = await this.catalogue.load();
    let declared: DeclaredPlugin[] = [];
    try {
      declared = (await TraefikStaticConfig.read(await this.configFile())).plugins();
    } catch {
      // As v3: a missing, unreadable or unset file only means nothing is shown as installed.
    }
    const byKey = new Map(declared.map((d) => [d.key, d]));
    const plugins: PluginDto[] = catalogue.plugins.map((plugin) => {
      const key = PluginsService.declaredKey(declared, plugin.import) ?? pluginKey(plugin.import);
      const installed = byKey.get(key);
      byKey.delete(key);
      return {
        ...plugin,
        key,
        inCatalogue: true,
        isInstalled: installed !== undefined,
        ...(installed?.version ? { installedVersion: installed.version } : {}),
      };
    });
    for (const extra of byKey.values()) {
      plugins.push({
        displayName: extra.key,
        type: 'middleware',
        iconPath: '',
        import: extra.moduleName ?? extra.key,
        summary: 'Declared in the Traefik static configuration; not in the catalogue.',
        key: extra.key,
        inCatalogue: false,
        isInstalled: true,
        ...(extra.version ? { installedVersion: extra.version } : {}),
      });
    }
    return { plugins, catalogue };
  }

  /** The key a module is declared under: v3's derived key, else whatever key names that module. */
  private static declaredKey(declared: DeclaredPlugin[], moduleName: string): string | undefined {
    const derived = pluginKey(moduleName);
    return (
      declared.find((d) => d.key === derived)?.key ??
      declared.find((d) => d.moduleName === moduleName)?.key ??
      declared.find((d) => d.key === moduleName)?.key
    );
  }

  async install(body: InstallPluginDto): Promise<PluginChangedDto> {
    const moduleName = body.moduleName.trim();
    let version = body.version?.trim() || undefined;
    if (!version) {
      // v3's UI sends no version for "latest": take the catalogue's, since Traefik requires one.
      version = (await this.catalogue.load()).plugins.find((p) => p.import === moduleName)?.version;
      if (!version || !VERSION.test(version))
        throw new ValidationError(
          [issue(['version'], 'is required: the catalogue names no version for this module', 'invalid_type')],
          body,
        );
    }
    const file = await this.configFile();
    const key = await this.writes.run(file, async () => {
      const config = await TraefikStaticConfig.read(file);
      const declaredKey = PluginsService.declaredKey(config.plugins(), moduleName) ?? pluginKey(moduleName);
      config.declare(declaredKey, moduleName, version);
      await config.write();
      return declaredKey;
    });
    this.events.publish('plugin.installed', { key, moduleName, version });
    return {
      message: `Plugin ${moduleName} configured in ${basename(file)}. A Traefik restart is required to load the plugin.`,
      key,
      moduleName,
      version,
      path: this.configPath()!,
    };
  }

  async remove(body: RemovePluginDto): Promise<PluginChangedDto> {
    const moduleName = body.moduleName.trim();
    const file = await this.configFile();
    const key = await this.writes.run(file, async () => {
      const config = await TraefikStaticConfig.read(file);
      if (!config.existed)
        throw new NotFoundError(
          `Traefik static configuration file not found at: ${this.configPath()}. Cannot remove plugin.`,
        );
      const declaredKey = PluginsService.declaredKey(config.plugins(), moduleName);
      if (declaredKey === undefined || !config.remove(declaredKey))
        throw new NotFoundError(`Plugin '${moduleName}' not found in configuration.`);
      await config.write();
      return declaredKey;
    });
    this.events.publish('plugin.removed', { key, moduleName });
    return {
      message: `Plugin ${moduleName} removed from configuration in ${basename(file)}. A Traefik restart is required for changes to take effect.`,
      key,
      moduleName,
      path: this.configPath()!,
    };
  }
}
