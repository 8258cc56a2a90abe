import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import { ConfigInvalidError } from './config-errors';
import { ConfigController } from './config.controller';
import { ConfigService } from './config.service';

// What DirectoryMiddleware would have put on the request (the spec boots the controller without it, as the sessions spec does).
const instance = { directory: '/work/project', worktree: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;

/** What the config service was asked; `stored` is what it answers to a read. */
const calls: unknown[][] = [];
let stored: Record<string, unknown> = {};
const config = {
  get: (seen: Instance) => (calls.push(['get', seen]), Promise.resolve(stored)),
  update: (seen: Instance, patch: Record<string, unknown>) => {
    calls.push(['update', seen, patch]);
    if (patch.username === 'refused') return Promise.reject(new ConfigInvalidError('/work/project/opencode.json', [{ path: ['username'], message: 'taken' }]));
    return Promise.resolve({ ...patch });
  },
  references: () => [],
};

describe('ConfigController at the boundary (config.get, config.update, v2.reference.list)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([ConfigController], [{ provide: ConfigService, useValue: config }], { instance });
  });
  afterAll(() => ctx.close());
  beforeEach(() => {
    calls.length = 0;
    stored = {};
  });

  describe('GET /config', () => {
    it('200 with the config of the request instance, naming the schema when it does not', async () => {
      stored = { theme: 'opencode' };
      const res = await ctx.http().get('/config');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ $schema: 'https://opencode.ai/config.json', theme: 'opencode' });
      expect(calls).toEqual([['get', instance]]);
    });

    it('a config that names its own schema keeps it', async () => {
      stored = { $schema: 'https://example.test/schema.json' };
      expect((await ctx.http().get('/config')).body).toEqual({ $schema: 'https://example.test/schema.json' });
    });

    it('directory given twice: 400 naming directory', async () => {
      const res = await ctx.http().get('/config?directory=/a&directory=/b');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'directory');
      expect(calls).toEqual([]);
    });
  });

  describe('PATCH /config', () => {
    it('200 with the updated config; the service receives the instance and the patch', async () => {
      const patch = { theme: 'tokyonight', share: 'disabled', autoupdate: 'notify', tools: { bash: false } };
      const res = await ctx.http().patch('/config').send(patch);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(patch);
      expect(calls).toEqual([['update', instance, patch]]);
    });

    it('without a body: the service receives an empty patch', async () => {
      const res = await ctx.http().patch('/config');
      expect(res.status).toBe(200);
      expect(calls).toEqual([['update', instance, {}]]);
    });

    it.each([
      ['a theme that is not a string', { theme: 1 }, ['theme']],
      ['a share mode the reference does not list', { share: 'public' }, ['share']],
      ['a snapshot that is not a boolean', { snapshot: 'yes' }, ['snapshot']],
      ['a tool switch that is not a boolean', { tools: { bash: 'off' } }, ['tools', 'bash']],
      ['a permission the reference does not list', { permission: { edit: 'sometimes' } }, ['permission', 'edit']],
      ['a key the Config schema does not declare', { colour: 'red' }, []],
    ])('%s: 400 naming the field, service untouched', async (_case, body, path) => {
      const res = await ctx.http().patch('/config').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, path);
      expect(calls).toEqual([]);
    });

    it('an undeclared key is named in the message', async () => {
      const res = await ctx.http().patch('/config').send({ colour: 'red' });
      expect(expectSessionBadRequest(res.body).error[0].message).toBe('Unrecognized key: "colour"');
    });

    it('a config the service finds invalid: 400 ConfigInvalidError naming the file and the field', async () => {
      const res = await ctx.http().patch('/config').send({ username: 'refused' });
      expect(res.status).toBe(400);
      expect(expectSessionError(res.body, 'ConfigInvalidError').data.message).toBe('Invalid config /work/project/opencode.json: username: taken');
    });
  });

  describe('GET /api/reference', () => {
    it('200 with no references, located in the request instance', async () => {
      const res = await ctx.http().get('/api/reference?location[directory]=/work/project');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ location: { directory: '/work/project', project: { id: 'prj_1', directory: '/work/project' } }, data: [] });
    });

    it('a location member the reference does not declare: 400 naming location', async () => {
      const res = await ctx.http().get('/api/reference?location[branch]=main');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'location');
    });
  });
});
