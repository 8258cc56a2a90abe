import { Injectable } from '@nestjs/common';
import { projectFiles } from './project-files';

/** How long one listing of a directory serves later searches (the TUI asks on every keystroke). */
const INDEX_TTL_MS = 2000;

/**
 * The searchable files of each directory, listed once and shared for INDEX_TTL_MS: requests arriving
 * together wait for one listing instead of each running git, and a file created a moment ago shows up
 * at most that much later. (The reference keeps an index updated by a file watcher.)
 */
@Injectable()
export class ProjectFileIndex {
  private readonly listings = new Map<string, { at: number; files: Promise<string[]> }>();

  files(directory: string, isGit: boolean): Promise<string[]> {
    const now = Date.now();
    for (const [key, listing] of this.listings)
      if (now - listing.at > INDEX_TTL_MS) this.listings.delete(key);
    const key = `${isGit ? 'git' : 'walk'}:${directory}`;
    let listing = this.listings.get(key);
    if (!listing) {
      listing = { at: now, files: projectFiles(directory, isGit) };
      this.listings.set(key, listing);
      listing.files.catch(() => this.listings.delete(key));
    }
    return listing.files;
  }
}
