import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllowedDirectories } from '../common/allowed-directories';
import { KEEL_SETTINGS } from '../common/settings';
import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest } from '../../test/support/error-bodies';
import { DirectoriesController } from './directories.controller';

/**
 * The controller lists directories itself, so it runs over a small tree in a temporary directory;
 * the allowed-directories policy is a recording stand-in that answers for that tree.
 */
const base = realpathSync(mkdtempSync(join(tmpdir(), 'keel-directories-spec-')));
const root = join(base, 'root');
const outside = join(base, 'outside');
const calls: unknown[][] = [];
const policy = new AllowedDirectories([root]);
const allowed = {
  real: (path: string, field?: string) => (calls.push(['real', path, field]), policy.real(path, field)),
  realLocation: (path: string) => policy.realLocation(path),
};

describe('DirectoriesController at the boundary (GET /keel/directories)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    for (const dir of ['root/project/.git', 'root/project/src', 'root/other', 'root/.hidden', 'outside/secret']) mkdirSync(join(base, dir), { recursive: true });
    writeFileSync(join(root, 'loose.txt'), 'x');
    symlinkSync(join(root, 'other'), join(root, 'link-inside'));
    symlinkSync(outside, join(root, 'link-outside'));
    ctx = await controllerSetup(
      [DirectoriesController],
      [
        { provide: AllowedDirectories, useValue: allowed },
        // The root twice (with a trailing slash) and a root that does not exist: listed once, and not at all.
        { provide: KEEL_SETTINGS, useValue: { allowedDirectories: [root, `${root}/`, join(base, 'missing')] } },
      ],
    );
  });
  afterAll(async () => {
    await ctx.close();
    rmSync(base, { recursive: true, force: true });
  });
  beforeEach(() => (calls.length = 0));

  it.each([
    ['without path', ''],
    ['with an empty path', '?path='],
  ])('%s: 200 with the allowed roots that exist, each once', async (_case, query) => {
    const res = await ctx.http().get(`/keel/directories${query}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ path: null, root: null, parent: null, directories: [{ name: 'root', path: root, git: false }], truncated: false });
    expect(calls).toEqual([]);
  });

  it('a root: 200 with its directories by name, dot-directories last, links only where they lead inside, no parent', async () => {
    const res = await ctx.http().get('/keel/directories').query({ path: root });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      path: root,
      root,
      parent: null,
      directories: [
        { name: 'link-inside', path: join(root, 'other'), git: false },
        { name: 'other', path: join(root, 'other'), git: false },
        { name: 'project', path: join(root, 'project'), git: true },
        { name: '.hidden', path: join(root, '.hidden'), git: false },
      ],
      truncated: false,
    });
    expect(calls).toEqual([['real', root, 'path']]);
  });

  it('a directory inside a root: 200 with its root and its parent', async () => {
    const res = await ctx.http().get('/keel/directories').query({ path: join(root, 'project') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ path: join(root, 'project'), root, parent: root, directories: [{ name: 'src' }, { name: '.git' }] });
  });

  it.each([
    ['a relative path', '?path=project'],
    ['a path given twice', `?path=${encodeURIComponent(root)}&path=${encodeURIComponent(root)}`],
    ['a path longer than 4096 characters', `?path=/${'a'.repeat(4096)}`],
  ])('%s: 400 naming path, before the policy is asked', async (_case, query) => {
    const res = await ctx.http().get(`/keel/directories${query}`);
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, 'path');
    expect(calls).toEqual([]);
  });

  it('a path with a NUL: 400 naming path at the boundary', async () => {
    const res = await ctx.http().get('/keel/directories?path=/a%00b');
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, 'path');
    expect(calls).toEqual([]);
  });

  it.each([
    ['a directory outside the roots', () => outside],
    ['a link inside a root leading outside', () => join(root, 'link-outside')],
    ['a file', () => join(root, 'loose.txt')],
    ['a path that does not exist', () => join(root, 'nothing')],
  ])('%s: the policy refuses it, 400 naming path', async (_case, path) => {
    const res = await ctx.http().get('/keel/directories').query({ path: path() });
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, 'path');
    expect(calls).toEqual([['real', path(), 'path']]);
  });
});
