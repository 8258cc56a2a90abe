import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { ValidationError, issue } from '../common/errors';
import { isInside } from '../common/paths';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { InstanceService } from './instance.service';

/**
 * Resolves the request's directory (`?directory=`, else the URL-decoded `x-opencode-directory`
 * header, else the server's working directory) and its Instance, for every session-surface route.
 */
@Injectable()
export class DirectoryMiddleware implements NestMiddleware {
  constructor(
    private readonly instances: InstanceService,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
  ) {}

  async use(req: Request, _res: Response, next: NextFunction): Promise<void> {
    try {
      const directory = await this.resolveDirectory(req);
      req.instance = await this.instances.get(directory);
      next();
    } catch (error) {
      next(error);
    }
  }

  private async resolveDirectory(req: Request): Promise<string> {
    const query = req.query.directory;
    const header = req.headers['x-opencode-directory'];
    let raw: string | undefined;
    if (typeof query === 'string') raw = query;
    else if (typeof header === 'string') {
      try {
        raw = decodeURIComponent(header);
      } catch {
        throw this.invalid(header, 'x-opencode-directory is not valid URL encoding');
      }
    }
    if (raw === undefined) return process.cwd();
    if (!isAbsolute(raw)) throw this.invalid(raw, 'directory must be an absolute path');
    // Normalised (no trailing slash, no `..`), so `/a` and `/a/` are one instance.
    const directory = resolve(raw);
    if (!this.settings.allowedDirectories.some((allowed) => isInside(allowed, directory))) {
      throw this.invalid(raw, 'directory is outside the directories this server may use');
    }
    const info = await stat(directory).catch(() => undefined);
    if (!info?.isDirectory()) throw this.invalid(raw, 'directory does not exist or is not a directory');
    return directory;
  }

  private invalid(value: string, message: string): ValidationError {
    return new ValidationError([issue(['directory'], message)], { directory: value });
  }
}
