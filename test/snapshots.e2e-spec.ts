import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigService } from '../src/config/config.service';
import { InstanceService } from '../src/projects/instance.service';
import type { Instance } from '../src/projects/instance.service';
import { SnapshotService } from '../src/snapshots/snapshot.service';
import { expectReferenceSchema } from './support/reference-schema';
import { startKeel, tempDir, TestKeel } from './support/keel';

/** A user repository with one commit, and a fingerprint of its own `.git` to prove it is never touched. */
function userRepository(files: Record<string, string>): { dir: string; fingerprint: () => string } {
  const dir = tempDir('keel-snapshot-repo-');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  for (const [name, content] of Object.entries(files)) write(dir, name, content);
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'initial');
  return {
    dir,
    fingerprint: () =>
      [
        git('rev-parse', 'HEAD'),
        git('ls-files', '--stage'),
        git('count-objects', '-v'),
        execFileSync('sha256sum', [join(dir, '.git', 'index')], { encoding: 'utf8' }),
      ].join('\n'),
  };
}

function write(dir: string, name: string, content: string | Buffer): void {
  mkdirSync(join(dir, name, '..'), { recursive: true });
  writeFileSync(join(dir, name), content);
}

describe('snapshots: shadow git repository per project', () => {
  let keel: TestKeel;
  let snapshots: SnapshotService;
  let instances: InstanceService;
  const cleanups: string[] = [];

  beforeAll(async () => {
    keel = await startKeel();
    snapshots = keel.keel.app.get(SnapshotService);
    instances = keel.keel.app.get(InstanceService);
  });

  afterAll(async () => {
    await keel.close();
    for (const dir of cleanups) rmSync(dir, { recursive: true, force: true });
  });

  async function repository(
    files: Record<string, string>,
  ): Promise<{ dir: string; instance: Instance; fingerprint: () => string }> {
    const repo = userRepository(files);
    cleanups.push(repo.dir);
    return { ...repo, instance: await instances.get(repo.dir) };
  }

  it('tracks trees in <dataDir>/snapshot/<projectID>, lists changed files, honours .gitignore, never touches .git', async () => {
    const { dir, instance, fingerprint } = await repository({
      'a.txt': 'one\n',
      'b.txt': 'bee\n',
      '.gitignore': 'ignored/\n*.log\n',
    });
    const before = fingerprint();
    write(dir, 'untracked.txt', 'not committed by the user\n');
    const start = await snapshots.track(instance);
    expect(start).toMatch(/^[0-9a-f]{40}$/);
    expect(existsSync(join(keel.dataDir, 'snapshot', instance.project.id, 'HEAD'))).toBe(true);
    expect(await snapshots.track(instance)).toBe(start); // same content, same tree

    write(dir, 'a.txt', 'one\ntwo\n');
    write(dir, 'nested/dir/new file*.txt', 'new\n');
    rmSync(join(dir, 'b.txt'));
    write(dir, 'ignored/cache.bin', 'x');
    write(dir, 'debug.log', 'x');
    const patch = await snapshots.patch(instance, start!);
    expect(patch.hash).toBe(start);
    expect(patch.files.sort()).toEqual(
      [join(dir, 'a.txt'), join(dir, 'b.txt'), join(dir, 'nested/dir/new file*.txt')].sort(),
    );
    expectReferenceSchema(
      { id: 'prt_1', sessionID: 'ses_1', messageID: 'msg_1', type: 'patch', ...patch },
      'PatchPart',
    );

    expect(await snapshots.patch(instance, (await snapshots.track(instance))!)).toEqual(
      expect.objectContaining({ files: [] }),
    );
    expect(fingerprint()).toBe(before);
    expect(
      execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .sort(),
    ).toEqual([' D b.txt', ' M a.txt', '?? nested/', '?? untracked.txt']);
  });

  it('diffFull gives FileDiff entries with full contents; binary files have empty before/after', async () => {
    const { dir, instance } = await repository({ 'a.txt': 'one\ntwo\nthree\n', 'gone.txt': 'bye\n' });
    const from = (await snapshots.track(instance))!;
    write(dir, 'a.txt', 'one\n2\nthree\nfour\n');
    rmSync(join(dir, 'gone.txt'));
    write(dir, 'src/new.ts', 'export const x = 1;\n');
    write(dir, 'image.bin', Buffer.from([0, 1, 2, 3, 0, 255]));
    const to = (await snapshots.track(instance))!;
    const diffs = await snapshots.diffFull(instance, from, to);
    for (const diff of diffs) expectReferenceSchema(diff, 'FileDiff');
    expect(diffs.sort((x, y) => x.file.localeCompare(y.file))).toEqual([
      {
        file: 'a.txt',
        before: 'one\ntwo\nthree\n',
        after: 'one\n2\nthree\nfour\n',
        additions: 2,
        deletions: 1,
      },
      { file: 'gone.txt', before: 'bye\n', after: '', additions: 0, deletions: 1 },
      { file: 'image.bin', before: '', after: '', additions: 0, deletions: 0 },
      { file: 'src/new.ts', before: '', after: 'export const x = 1;\n', additions: 1, deletions: 0 },
    ]);
    expect(await snapshots.diffFull(instance, to, to)).toEqual([]);
    expect(await snapshots.diff(instance, from)).toContain('+four');
  });

  it('revertFiles checks files out from the earliest patch and deletes files absent then; restore brings a tree back', async () => {
    const { dir, instance, fingerprint } = await repository({ 'a.txt': 'v0\n', 'keep.txt': 'keep\n' });
    const before = fingerprint();
    const s0 = (await snapshots.track(instance))!;
    write(dir, 'a.txt', 'v1\n');
    write(dir, 'created.txt', 'created\n');
    const p1 = await snapshots.patch(instance, s0);
    const s1 = (await snapshots.track(instance))!;
    write(dir, 'a.txt', 'v2\n');
    rmSync(join(dir, 'keep.txt'));
    const p2 = await snapshots.patch(instance, s1);
    const end = (await snapshots.track(instance))!;
    write(dir, 'user-edit.txt', 'the user wrote this meanwhile\n');

    await snapshots.revertFiles(instance, [p2]);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('v1\n');
    expect(readFileSync(join(dir, 'keep.txt'), 'utf8')).toBe('keep\n');
    expect(existsSync(join(dir, 'created.txt'))).toBe(true);

    await snapshots.revertFiles(instance, [p1, p2]);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('v0\n');
    expect(existsSync(join(dir, 'created.txt'))).toBe(false);
    expect(readFileSync(join(dir, 'user-edit.txt'), 'utf8')).toBe('the user wrote this meanwhile\n');

    // Paths outside the worktree are never touched, whatever a stored part says.
    const outside = join(tempDir('keel-outside-'), 'victim.txt');
    cleanups.push(join(outside, '..'));
    writeFileSync(outside, 'mine');
    symlinkSync(join(outside, '..'), join(dir, 'linked'));
    await snapshots.revertFiles(instance, [
      {
        hash: s0,
        files: [
          outside,
          join(dir, '..', 'escape.txt'),
          join(dir, 'linked', 'victim.txt'),
          join(dir, '.git', 'HEAD'),
        ],
      },
      { hash: '--orphan=x', files: [join(dir, 'a.txt')] },
    ]);
    expect(readFileSync(outside, 'utf8')).toBe('mine');
    expect(existsSync(join(dir, '.git', 'HEAD'))).toBe(true);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('v0\n');
    rmSync(join(dir, 'linked'));

    await snapshots.restore(instance, end);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('v2\n');
    expect(readFileSync(join(dir, 'created.txt'), 'utf8')).toBe('created\n');
    expect(existsSync(join(dir, 'keep.txt'))).toBe(true); // restore rewrites the tree's files, deletes nothing
    await expect(snapshots.restore(instance, '0'.repeat(40))).rejects.toThrow();
    expect(fingerprint()).toBe(before);
  });

  it('serialises concurrent calls on one shadow repository', async () => {
    const { dir, instance } = await repository({ 'a.txt': 'a\n' });
    const base = (await snapshots.track(instance))!;
    const work = Array.from({ length: 8 }, (_, i) => {
      write(dir, `f${i}.txt`, `${i}\n`);
      return i % 2 ? snapshots.track(instance) : snapshots.patch(instance, base);
    });
    const results = await Promise.all(work);
    for (const r of results) expect(r).toBeDefined();
    expect((await snapshots.patch(instance, base)).files).toHaveLength(8);
  });

  it('recovers from an index.lock left by a process that died mid-command', async () => {
    const { dir, instance } = await repository({ 'lock.txt': 'first\n' });
    const first = await snapshots.track(instance);
    writeFileSync(join(keel.dataDir, 'snapshot', instance.project.id, 'index.lock'), '');
    expect(await snapshots.track(instance)).toBeUndefined(); // this process's own calls never leave one
    const restarted = new SnapshotService(keel.settings, keel.keel.app.get(ConfigService));
    write(dir, 'lock.txt', 'second\n');
    const next = await restarted.track(instance);
    expect(next).toMatch(/^[0-9a-f]{40}$/);
    expect(next).not.toBe(first);
  });

  it('is disabled outside git and with config snapshot:false', async () => {
    const plain = tempDir('keel-snapshot-plain-');
    cleanups.push(plain);
    expect(await snapshots.track(await instances.get(plain))).toBeUndefined();

    const { dir } = await repository({ 'opencode.json': JSON.stringify({ snapshot: false }) });
    const instance = await instances.get(dir);
    expect(await snapshots.enabled(instance)).toBe(false);
    expect(await snapshots.track(instance)).toBeUndefined();
  });
});
