import { walkFiles } from '../tools/file-walk';
import { splitNul } from '../common/git';
import { runGit } from './git-run';

/** Most files a search looks at; deeper trees are cut (the reference's ripgrep has no bound). */
const MAX_INDEXED_FILES = 50_000;

/**
 * The files below `directory` a search covers, relative POSIX paths, sorted. In a git worktree this is
 * what git sees (tracked plus untracked, every .gitignore and .git/info/exclude honoured, hidden files
 * included, .git excluded), like ripgrep's `--hidden` walk; elsewhere a walk that skips the usual
 * dependency and build directories.
 */
export async function projectFiles(directory: string, isGit: boolean): Promise<string[]> {
  if (isGit) {
    const [listed, deleted] = await Promise.all([
      runGit(directory, ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--deduplicate']),
      runGit(directory, ['ls-files', '-z', '--deleted']),
    ]);
    if (listed.code === 0) {
      // Tracked files removed from the worktree are still in the index; a search only sees what exists.
      const gone = new Set(splitNul(deleted.stdout));
      return [...new Set(splitNul(listed.stdout))]
        .filter((f) => !gone.has(f))
        .sort()
        .slice(0, MAX_INDEXED_FILES);
    }
  }
  const files: string[] = [];
  for await (const file of walkFiles(directory, { max: MAX_INDEXED_FILES }))
    files.push(file.split('\\').join('/'));
  return files.sort();
}

/** Every directory that holds an indexed file, as `dir/` (the reference's directory index). */
export function directoriesOf(files: string[]): string[] {
  const dirs = new Set<string>();
  for (const file of files) {
    for (let i = file.lastIndexOf('/'); i > 0; i = file.lastIndexOf('/', i - 1)) {
      const dir = `${file.slice(0, i)}/`;
      if (dirs.has(dir)) break;
      dirs.add(dir);
    }
  }
  return [...dirs];
}
