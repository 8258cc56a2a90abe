import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { ValidationError, issue } from '../common/errors';
import { isInside } from '../common/paths';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { InstanceService } from './instance.service';

/** How long a directory found to exist is taken to exist without another stat (every request names one). */
const VERIFIED_FOR_MS = 1_000;
const VERIFIED_LIMIT = 1_024;

/**
 * Resolves the request's directory (`?directory=`, else the URL-decoded `x-opencode-directory`
 * header, else the server's working directory) and its Instance, for every session-surface route.
 */
@Injectable()
export class DirectoryMiddleware implements NestMiddleware {
  /** Directories that existed at the time noted, so a burst of requests stats each once a second. */
  private readonly verified = new Map<string, number>();

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
    // `?directory=a&directory=b` or `?directory[x]=a` must not fall through to the working directory.
    if (query !== undefined && typeof query !== 'string') throw this.invalid(query, 'directory must be given once, as a string');
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
    if (!(await this.exists(directory))) throw this.invalid(raw, 'directory does not exist or is not a directory');
    return directory;
  }

  private async exists(directory: string): Promise<boolean> {
    const now = Date.now();
    if (now - (this.verified.get(directory) ?? -Infinity) < VERIFIED_FOR_MS) return true;
    const info = await stat(directory).catch(() => undefined);
    if (!info?.isDirectory()) {
      this.verified.delete(directory);
      return false;
    }
    if (this.verified.size >= VERIFIED_LIMIT) this.verified.clear();
    this.verified.set(directory, now);
    return true;
  }

  private invalid(value: unknown, message: string): ValidationError {
    return new ValidationError([issue(['directory'], message)], { directory: value });
  }
}
