import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setEnv } from './support/env';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { expectReferenceResponse } from './support/reference-schema';

/** One step of a recorded scenario (test/fixtures/opencode-1.18.33/record-vcs.mjs writes them). */
type Step = { git: string[] } | { rm: string } | { write: string; text?: string; base64?: string };
interface Scenario {
  name: string;
  steps: Step[];
  answers: { path: string; status: number; body: unknown }[];
}

const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'opencode-1.18.33', 'vcs.json'), 'utf8')) as { scenarios: Scenario[] };

function applySteps(dir: string, steps: Step[]): void {
  for (const step of steps) {
    if ('git' in step) {
      execFileSync('git', step.git, {
        cwd: dir,
        env: { ...process.env, GIT_AUTHOR_NAME: 'keel', GIT_AUTHOR_EMAIL: 'keel@example.invalid', GIT_COMMITTER_NAME: 'keel', GIT_COMMITTER_EMAIL: 'keel@example.invalid' },
      });
    } else if ('rm' in step) rmSync(join(dir, step.rm));
    else {
      mkdirSync(dirname(join(dir, step.write)), { recursive: true });
      writeFileSync(join(dir, step.write), step.base64 === undefined ? (step.text ?? '') : Buffer.from(step.base64, 'base64'));
    }
  }
}

/**
 * `/vcs`, `/vcs/status` and `/vcs/diff` (opencode 1.18.33's TUI opens `/diff` with
 * `GET /vcs/diff?mode=git&context=12`; its source switch asks `mode=branch`): the same repositories the
 * reference server answered in test/fixtures/opencode-1.18.33/vcs.json, answered the same, byte for byte.
 */
describe('version control of the directory, as opencode 1.18.33 answers it (issue 22)', () => {
  let keel: TestKeel;
  let restoreEnv: () => void;
  const dirs: string[] = [];

  beforeAll(async () => {
    // The machine's /etc/gitconfig (say init.defaultBranch) must not change the default branch found.
    restoreEnv = setEnv({ GIT_CONFIG_NOSYSTEM: '1' });
    keel = await startKeel();
  });

  afterAll(async () => {
    await keel.close();
    restoreEnv();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const get = async (dir: string, path: string) => {
    const response = await fetch(`${keel.url}${path}${path.includes('?') ? '&' : '?'}directory=${encodeURIComponent(dir)}`);
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text.replaceAll(dir, '<dir>')) as unknown, raw: JSON.parse(text) as unknown };
  };

  it.each(fixture.scenarios.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const dir = tempDir('keel-vcs-');
    dirs.push(dir);
    applySteps(dir, scenario.steps);
    for (const expected of scenario.answers) {
      const actual = await get(dir, expected.path);
      expect({ path: expected.path, status: actual.status, body: actual.body }).toEqual(expected);
      expectReferenceResponse(actual.raw, expected.path.startsWith('/vcs/diff') ? 'vcs.diff' : expected.path === '/vcs' ? 'vcs.get' : 'vcs.status');
    }
  });

  it('takes the mode and context the client sends, and names a bad one', async () => {
    const dir = tempDir('keel-vcs-args-');
    dirs.push(dir);
    applySteps(dir, [{ git: ['init', '-q', '-b', 'main'] }, { write: 'a.txt', text: 'a\n' }, { git: ['add', '.'] }, { git: ['commit', '-q', '-m', 'a'] }, { write: 'a.txt', text: 'a\nb\n' }]);
    // As the 1.18 TUI sends it: `directory` and `location[directory]`.
    const tui = await fetch(`${keel.url}/vcs/diff?mode=git&context=12&directory=${encodeURIComponent(dir)}&location%5Bdirectory%5D=${encodeURIComponent(dir)}`);
    expect(tui.status).toBe(200);
    expect(await tui.json()).toEqual([expect.objectContaining({ file: 'a.txt', additions: 1, deletions: 0, status: 'modified' })]);
    for (const [query, field] of [
      ['', 'mode'],
      ['mode=working', 'mode'],
      ['mode=git&context=-1', 'context'],
      ['mode=git&context=abc', 'context'],
      ['mode=git&context=1.5', 'context'],
    ]) {
      const { status, body } = await get(dir, `/vcs/diff?${query}`);
      expect({ query, status }).toEqual({ query, status: 400 });
      expect(body).toMatchObject({ success: false, error: [expect.objectContaining({ path: [field] })] });
    }
  });

  it('answers a subdirectory of a repository with the changes below it, paths from the repository root', async () => {
    const dir = tempDir('keel-vcs-sub-');
    dirs.push(dir);
    applySteps(dir, [
      { git: ['init', '-q', '-b', 'main'] },
      { write: 'top.txt', text: 'top\n' },
      { write: 'pkg/inner.txt', text: 'inner\n' },
      { git: ['add', '.'] },
      { git: ['commit', '-q', '-m', 'init'] },
      { write: 'top.txt', text: 'top\nchanged\n' },
      { write: 'pkg/inner.txt', text: 'inner\nchanged\n' },
      { write: 'pkg/new.txt', text: 'new\n' },
    ]);
    const sub = join(dir, 'pkg');
    const { status, raw } = await get(sub, '/vcs/diff?mode=git&context=3');
    expect(status).toBe(200);
    expect((raw as { file: string; status: string; additions: number }[]).map(({ file, status, additions }) => ({ file, status, additions }))).toEqual([
      { file: 'pkg/inner.txt', status: 'modified', additions: 1 },
      { file: 'pkg/new.txt', status: 'added', additions: 1 },
    ]);
    const statusList = await get(sub, '/vcs/status');
    expect((statusList.raw as { file: string }[]).map((f) => f.file)).toEqual(['pkg/inner.txt', 'pkg/new.txt']);
  });
});
