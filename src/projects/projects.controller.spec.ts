import { homedir } from 'node:os';
import { NotFoundError } from '../common/errors';
import { KEEL_SETTINGS } from '../common/settings';
import { KEEL_VERSION } from '../common/version';
import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { setEnv } from '../../test/support/env';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import { InstanceService } from './instance.service';
import type { Instance } from './instance.service';
import { ProjectService } from './project.service';
import { GlobalController, ProjectsController } from './projects.controller';

// What DirectoryMiddleware would have put on the request (the spec boots the controllers without it, as the sessions spec does).
const instance = { directory: '/work/project/sub', worktree: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;
const project = (id: string, name?: string) => ({ id, worktree: '/work/project', vcs: 'git', name, time: { created: 1, updated: 1 } });

/** What the services were asked; `prj_missing` is a project the service does not know. */
const calls: unknown[][] = [];
const unknown = (id: string) => Promise.reject(new NotFoundError(`Project not found: ${id}`));
const projects = {
  list: () => (calls.push(['list']), Promise.resolve([project('prj_1')])),
  get: (id: string) => (calls.push(['get', id]), id === 'prj_missing' ? unknown(id) : Promise.resolve(project(id))),
  update: (id: string, patch: unknown) => (calls.push(['update', id, patch]), id === 'prj_missing' ? unknown(id) : Promise.resolve(project(id, 'renamed'))),
  directories: (id: string) => (calls.push(['directories', id]), id === 'prj_missing' ? unknown(id) : Promise.resolve([{ directory: '/work/project' }])),
  refreshDirectories: (id: string) => (calls.push(['refreshDirectories', id]), id === 'prj_missing' ? unknown(id) : Promise.resolve()),
};
const instances = {
  dispose: (directory: string) => (calls.push(['dispose', directory]), Promise.resolve()),
  disposeAll: () => (calls.push(['disposeAll']), Promise.resolve()),
};

describe('GlobalController and ProjectsController at the boundary (global, project, location, path)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup(
      [GlobalController, ProjectsController],
      [
        { provide: ProjectService, useValue: projects },
        { provide: InstanceService, useValue: instances },
        { provide: KEEL_SETTINGS, useValue: { dataDir: '/var/lib/keel' } },
      ],
      { instance },
    );
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('GET /global/health: 200 healthy with the version', async () => {
    const res = await ctx.http().get('/global/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ healthy: true, version: KEEL_VERSION });
  });

  it('POST /global/dispose: 200 (not 201) `true` after disposing every instance', async () => {
    const res = await ctx.http().post('/global/dispose');
    expect(res.status).toBe(200);
    expect(res.body).toBe(true);
    expect(calls).toEqual([['disposeAll']]);
  });

  it('POST /instance/dispose: 200 `true` after disposing the request instance', async () => {
    const res = await ctx.http().post('/instance/dispose');
    expect(res.status).toBe(200);
    expect(res.body).toBe(true);
    expect(calls).toEqual([['dispose', '/work/project/sub']]);
  });

  it('GET /project: 200 with the projects', async () => {
    const res = await ctx.http().get('/project');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([project('prj_1')]);
    expect(calls).toEqual([['list']]);
  });

  it('GET /project/current: 200 with the project of the request instance', async () => {
    const res = await ctx.http().get('/project/current');
    expect(res.status).toBe(200);
    expect(calls).toEqual([['get', 'prj_1']]);
  });

  it.each([
    ['GET /project', '/project?directory=/a&directory=/b'],
    ['GET /project/current', '/project/current?directory=/a&directory=/b'],
    ['GET /path', '/path?directory=/a&directory=/b'],
  ])('%s with directory given twice: 400 naming directory', async (_case, path) => {
    const res = await ctx.http().get(path);
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, 'directory');
    expect(calls).toEqual([]);
  });

  describe('PATCH /project/:projectID (project.update)', () => {
    it('200 with the project; the service receives the id and the patch', async () => {
      const patch = { name: 'renamed', icon: { url: 'https://x.test/i.png', color: 'blue' } };
      const res = await ctx.http().patch('/project/prj_1').send(patch);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: 'prj_1', name: 'renamed' });
      expect(calls).toEqual([['update', 'prj_1', patch]]);
    });

    it('without a body: the service receives an empty patch', async () => {
      const res = await ctx.http().patch('/project/prj_1');
      expect(res.status).toBe(200);
      expect(calls).toEqual([['update', 'prj_1', {}]]);
    });

    it.each([
      ['a name that is not a string', { name: 5 }, ['name']],
      ['an icon that is not an object', { icon: 'star' }, ['icon']],
      ['an icon color that is not a string', { icon: { color: 3 } }, ['icon', 'color']],
      ['a body that is an array', [], []],
    ])('%s: 400 naming the field, service untouched', async (_case, body, path) => {
      const res = await ctx.http().patch('/project/prj_1').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, path);
      expect(calls).toEqual([]);
    });

    it('a NUL in the project id: 400 naming projectID', async () => {
      const res = await ctx.http().patch('/project/prj%00x').send({});
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'projectID');
      expect(calls).toEqual([]);
    });

    it('a project the service does not know: 404 NotFoundError', async () => {
      const res = await ctx.http().patch('/project/prj_missing').send({ name: 'x' });
      expect(res.status).toBe(404);
      expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('Project not found: prj_missing');
    });
  });

  describe('GET /project/:projectID/directories and POST /experimental/project/:projectID/copy/refresh', () => {
    it('GET directories: 200 with the service answer for the id', async () => {
      const res = await ctx.http().get('/project/prj_1/directories');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ directory: '/work/project' }]);
      expect(calls).toEqual([['directories', 'prj_1']]);
    });

    it('POST copy/refresh: 204 with no body, the service asked for the id', async () => {
      const res = await ctx.http().post('/experimental/project/prj_1/copy/refresh');
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(calls).toEqual([['refreshDirectories', 'prj_1']]);
    });

    it.each([
      ['GET directories', 'get', '/project/prj_missing/directories'],
      ['POST copy/refresh', 'post', '/experimental/project/prj_missing/copy/refresh'],
    ] as const)('%s of a project the service does not know: 404 NotFoundError', async (_case, method, path) => {
      const res = await ctx.http()[method](path);
      expect(res.status).toBe(404);
      expectSessionError(res.body, 'NotFoundError');
    });

    it.each([
      ['GET directories with workspace given twice', 'get', '/project/prj_1/directories?workspace=a&workspace=b', 'workspace'],
      ['POST copy/refresh with a location member the reference does not declare', 'post', '/experimental/project/prj_1/copy/refresh?location[branch]=x', 'location'],
    ] as const)('%s: 400 naming the field', async (_case, method, path, field) => {
      const res = await ctx.http()[method](path);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });
  });

  describe('GET /api/location (v2.location.get) and GET /path (path.get)', () => {
    it('GET /api/location: 200 with the request instance and its project', async () => {
      const res = await ctx.http().get('/api/location?location[directory]=/work/project/sub');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ directory: '/work/project/sub', project: { id: 'prj_1', directory: '/work/project' } });
    });

    it('GET /api/location with location[workspace] given twice: 400 naming location.workspace', async () => {
      const res = await ctx.http().get('/api/location?location[workspace]=a&location[workspace]=b');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, ['location', 'workspace']);
    });

    it('GET /path: 200 with home, state under the data directory, config under XDG_CONFIG_HOME, worktree and directory', async () => {
      const restore = setEnv({ XDG_CONFIG_HOME: '/xdg' });
      try {
        const res = await ctx.http().get('/path');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ home: homedir(), state: '/var/lib/keel/state', config: '/xdg/opencode', worktree: '/work/project', directory: '/work/project/sub' });
      } finally {
        restore();
      }
    });
  });
});
