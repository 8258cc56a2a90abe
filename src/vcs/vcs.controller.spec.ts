import { NotFoundError } from '../common/errors';
import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import { VcsController } from './vcs.controller';
import { VcsService } from './vcs.service';

// What DirectoryMiddleware would have put on the request (the spec boots the controller without it, as the sessions spec does).
const instance = { directory: '/work/project', worktree: '/work/project', project: { id: 'prj_1', vcs: 'git' } } as unknown as Instance;

/** What the VCS service was asked (the Instance is asserted to be the request's, then left out). */
const calls: unknown[][] = [];
const record = (seen: Instance, ...call: unknown[]) => {
  expect(seen).toBe(instance);
  calls.push(call);
};
const vcs = {
  info: (seen: Instance) => (record(seen, 'info'), Promise.resolve({ branch: 'main', default_branch: 'main' })),
  status: (seen: Instance) => (record(seen, 'status'), Promise.resolve([{ file: 'a.txt', status: 'modified' }])),
  diff: (seen: Instance, mode: string, context?: number) => {
    record(seen, 'diff', mode, context);
    if (context === 13) return Promise.reject(new NotFoundError('No default branch'));
    if (context === 666) return Promise.reject(new Error('git exited 128 in /secret/path'));
    return Promise.resolve([]);
  },
};

describe('VcsController at the boundary (vcs.get, vcs.status, vcs.diff)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([VcsController], [{ provide: VcsService, useValue: vcs }], { instance });
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('GET /vcs: 200 with the branch of the request instance', async () => {
    const res = await ctx.http().get('/vcs');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ branch: 'main', default_branch: 'main' });
    expect(calls).toEqual([['info']]);
  });

  it('GET /vcs/status: 200 with the changed files', async () => {
    const res = await ctx.http().get('/vcs/status').query({ directory: '/work/project', workspace: 'wrk_1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ file: 'a.txt', status: 'modified' }]);
    expect(calls).toEqual([['status']]);
  });

  describe('GET /vcs/diff', () => {
    it.each([
      ['mode=git: whole files (no context)', 'mode=git', ['diff', 'git', undefined]],
      ['mode=branch with context=0 (the minimum)', 'mode=branch&context=0', ['diff', 'branch', 0]],
      ['mode=git with context=12, as a number', 'mode=git&context=12', ['diff', 'git', 12]],
    ])('%s: 200; the service receives the checked values', async (_case, query, call) => {
      const res = await ctx.http().get(`/vcs/diff?${query}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
      expect(calls).toEqual([call]);
    });

    it.each([
      ['without mode', '/vcs/diff', 'mode'],
      ['with a mode the reference does not list', '/vcs/diff?mode=worktree', 'mode'],
      ['with mode given twice', '/vcs/diff?mode=git&mode=branch', 'mode'],
      ['with a negative context', '/vcs/diff?mode=git&context=-1', 'context'],
      ['with a fractional context', '/vcs/diff?mode=git&context=2.5', 'context'],
      ['with a context that is no number', '/vcs/diff?mode=git&context=all', 'context'],
      ['with an infinite context', '/vcs/diff?mode=git&context=1e309', 'context'],
      ['with workspace given twice', '/vcs/diff?mode=git&workspace=a&workspace=b', 'workspace'],
    ])('%s: 400 naming the field, service untouched', async (_case, path, field) => {
      const res = await ctx.http().get(path);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });

    it('a NotFoundError of the service: 404 in the session dialect', async () => {
      const res = await ctx.http().get('/vcs/diff?mode=branch&context=13');
      expect(res.status).toBe(404);
      expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('No default branch');
    });

    it('an unexpected service error: 500 UnknownError with the request id, nothing of the error', async () => {
      const res = await ctx.http().get('/vcs/diff?mode=git&context=666');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ name: 'UnknownError', data: { message: 'Unexpected server error', ref: TEST_REQUEST_ID } });
    });
  });
});
