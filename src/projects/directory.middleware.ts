import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { isAbsolute, resolve } from 'node:path';
import { AllowedDirectories } from '../common/allowed-directories';
import { ValidationError, issue } from '../common/errors';
import { InstanceService } from './instance.service';

/** How long a directory that passed the check is taken to pass it without another look (every request names one). */
const VERIFIED_FOR_MS = 1_000;
const VERIFIED_LIMIT = 1_024;

/**
 * Resolves the request's directory (`?directory=`, else `?location[directory]=` as opencode's v2
 * API names it, else the URL-decoded `x-opencode-directory` header, else the server's working
 * directory) and its Instance, for every session-surface route.
 * The Instance keeps the path as the client named it (the reference does, and clients match it in
 * what comes back); the check is on its real path, so a symbolic link leading out is refused.
 */
@Injectable()
export class DirectoryMiddleware implements NestMiddleware {
  /**
   * Directories that passed the full check (real path inside the allowed roots) at the time noted, so
   * a burst of requests checks each once a second. This spares only routes that touch the database:
   * whatever reads, writes or runs something in the directory resolves and checks its real path
   * again at that moment (files, PTY, shell, tools, config writes), so a link swapped within the
   * second leads nowhere.
   */
  private readonly verified = new Map<string, number>();

  constructor(
    private readonly instances: InstanceService,
    private readonly allowed: AllowedDirectories,
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
    const parameters = req.query;
    const plain = parameters.directory;
    const located = parameters['location[directory]'];
    const header = req.headers['x-opencode-directory'];
    let raw: string | undefined;
    // `?directory=a&directory=b` or `?directory[x]=a` must not fall through to the working directory.
    if (plain !== undefined && typeof plain !== 'string') throw this.invalid(plain, 'directory must be given once, as a string');
    // Express's simple query parser keeps `?directory[x]=a` as a key of its own.
    const bracketed = Object.keys(parameters).find((key) => key.startsWith('directory['));
    if (bracketed !== undefined) throw this.invalid(parameters[bracketed], 'directory must be given once, as a string');
    if (located !== undefined && typeof located !== 'string') throw this.invalid(located, 'location[directory] must be given once, as a string');
    // The 1.18 TUI sends both, the same; two different ones name no one directory.
    if (typeof plain === 'string' && typeof located === 'string' && plain !== located) throw this.invalid(plain, 'directory and location[directory] name different directories');
    const query = plain ?? located;
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
    await this.check(directory, raw);
    return directory;
  }

  private async check(directory: string, raw: string): Promise<void> {
    const now = Date.now();
    if (now - (this.verified.get(directory) ?? -Infinity) < VERIFIED_FOR_MS) return;
    this.verified.delete(directory);
    await this.allowed.real(directory, 'directory', raw);
    if (this.verified.size >= VERIFIED_LIMIT) this.verified.clear();
    this.verified.set(directory, now);
  }

  private invalid(value: unknown, message: string): ValidationError {
    return new ValidationError([issue(['directory'], message)], { directory: value });
  }
}
