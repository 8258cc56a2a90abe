import { BadRequestError, ConflictError, issue, NotFoundError, ValidationError } from '../../common/errors';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../../test/support/controller-setup';
import { expectRoutingError } from '../../../test/support/error-bodies';
import { InstallPluginDto, RemovePluginDto, SetConfigPathDto } from './dto/plugin.dto';
import { PluginsController } from './plugins.controller';
import { PluginsService } from './plugins.service';

const GEOBLOCK = 'github.com/PascalMinder/geoblock';
const FILE = '/etc/traefik/traefik.yml';

/**
 * What the service was asked: (method, body). Module names the fake treats as the file would:
 * `…/broken-yaml` a file that is no YAML mapping, `…/absent` a plugin not declared, `…/unpinned`
 * a module the catalogue names no version for.
 */
const calls: unknown[][] = [];
let catalogue: { source: string; problem?: string } = { source: 'bundled' };
const plugins = {
  list: () => (calls.push(['list']), Promise.resolve({ plugins: [], catalogue })),
  getConfigPath: () => (calls.push(['getConfigPath']), { path: FILE }),
  setConfigPath: (body: SetConfigPathDto) => {
    calls.push(['setConfigPath', body]);
    if (body.path === '/etc/shadow.yml') return Promise.reject(new BadRequestError('path: path is outside the directories this server may use'));
    return Promise.resolve({ path: body.path, message: 'Traefik static configuration path set' });
  },
  install: (body: InstallPluginDto) => {
    calls.push(['install', body]);
    if (body.moduleName.endsWith('/unpinned'))
      return Promise.reject(new ValidationError([issue(['version'], 'is required: the catalogue names no version for this module')], body));
    if (body.moduleName.endsWith('/broken-yaml')) return Promise.reject(new ConflictError(`Keel cannot read the Traefik static configuration ${FILE}: not a mapping`));
    if (body.moduleName.endsWith('/crash')) return Promise.reject(new Error('EIO: i/o error, write /etc/traefik/traefik.yml'));
    return Promise.resolve({ message: 'configured', key: 'geoblock', moduleName: body.moduleName.trim(), version: body.version ?? 'v0.3.2', path: FILE });
  },
  remove: (body: RemovePluginDto) => {
    calls.push(['remove', body]);
    if (body.moduleName.endsWith('/absent')) return Promise.reject(new NotFoundError(`Plugin '${body.moduleName}' not found in configuration.`));
    return Promise.resolve({ message: 'removed', key: 'geoblock', moduleName: body.moduleName, path: FILE });
  },
};

/** A body as the handler received it: its class and its own fields. */
const typed = (value: unknown) => [(value as object).constructor.name, { ...(value as object) }];
const NOT_A_MODULE = 'moduleName: must be a Go module path such as github.com/owner/repository';

describe('PluginsController at the boundary (/api/plugins, routing error dialect)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([PluginsController], [{ provide: PluginsService, useValue: plugins }]);
  });
  afterAll(() => ctx.close());
  beforeEach(() => {
    calls.length = 0;
    catalogue = { source: 'bundled' };
  });

  it('GET: 200 with the plugins and the catalogue source header; a problem, when there is one, as one line of printable ASCII of at most 500 characters', async () => {
    const res = await ctx.http().get('/api/plugins');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers['x-plugin-catalogue-source']).toBe('bundled');
    expect(res.headers['x-plugin-catalogue-problem']).toBeUndefined();
    catalogue = { source: 'bundled', problem: `fetch failed:\nnaïve ✓ ${'x'.repeat(600)}` };
    const failed = await ctx.http().get('/api/plugins');
    expect(failed.status).toBe(200);
    expect(failed.headers['x-plugin-catalogue-problem']).toBe(`fetch failed:?na?ve ? ${'x'.repeat(600)}`.slice(0, 500));
  });

  describe('/api/plugins/configpath', () => {
    it('GET 200; PUT 200 with the typed body, undeclared fields dropped', async () => {
      const got = await ctx.http().get('/api/plugins/configpath');
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ path: FILE });
      const set = await ctx.http().put('/api/plugins/configpath').send({ path: FILE, reload: true });
      expect(set.status).toBe(200);
      expect(set.body).toEqual({ path: FILE, message: 'Traefik static configuration path set' });
      expect(calls[0]).toEqual(['getConfigPath']);
      expect(typed(calls[1][1])).toEqual(['SetConfigPathDto', { path: FILE }]);
    });

    it('path is a required non-empty string: 400 naming it; a path the service refuses: 400 from the service', async () => {
      for (const body of [{}, { path: '' }, { path: '  ' }, { path: 42 }, { path: [FILE] }]) {
        const res = await ctx.http().put('/api/plugins/configpath').send(body);
        expect(res.status).toBe(400);
        expectRoutingError(res.body, 400, 'path: is required and must be a non-empty string');
      }
      const root = await ctx.http().put('/api/plugins/configpath').send([FILE]);
      expectRoutingError(root.body, 400, '(root): must be a JSON object; path: is required and must be a non-empty string');
      const nul = await ctx.http().put('/api/plugins/configpath').send({ path: '/etc/x\u0000.yml' });
      expectRoutingError(nul.body, 400, /^path: must not contain NUL/);
      expect(calls).toEqual([]);
      const outside = await ctx.http().put('/api/plugins/configpath').send({ path: '/etc/shadow.yml' });
      expect(outside.status).toBe(400);
      expectRoutingError(outside.body, 400, 'path: path is outside the directories this server may use');
    });
  });

  describe('POST /api/plugins/install', () => {
    it('200 (not 201); the typed body reaches the service as sent (trimming is the service\'s), version optional', async () => {
      const res = await ctx.http().post('/api/plugins/install').send({ moduleName: ` ${GEOBLOCK} `, version: 'v1.2.3-rc.1+build.5', force: true });
      expect(res.status).toBe(200);
      expect((await ctx.http().post('/api/plugins/install').send({ moduleName: GEOBLOCK })).status).toBe(200);
      expect((await ctx.http().post('/api/plugins/install').send({ moduleName: GEOBLOCK, version: ' ' })).status).toBe(200);
      expect((await ctx.http().post('/api/plugins/install').send({ moduleName: `gitlab.example.com/${'a'.repeat(270)}`, version: null })).status).toBe(200);
      expect(calls.map(([name, body]) => [name, ...typed(body)])).toEqual([
        ['install', 'InstallPluginDto', { moduleName: ` ${GEOBLOCK} `, version: 'v1.2.3-rc.1+build.5' }],
        ['install', 'InstallPluginDto', { moduleName: GEOBLOCK }],
        ['install', 'InstallPluginDto', { moduleName: GEOBLOCK, version: ' ' }],
        ['install', 'InstallPluginDto', { moduleName: `gitlab.example.com/${'a'.repeat(270)}`, version: null }],
      ]);
    });

    it('moduleName a Go module path of at most 300 characters; version a module version of at most 100: 400 naming the field', async () => {
      for (const [body, message] of [
        [{}, 'moduleName: is required and must be a non-empty string'],
        [{ moduleName: 7 }, 'moduleName: is required and must be a non-empty string'],
        [{ moduleName: 'geoblock' }, NOT_A_MODULE],
        [{ moduleName: 'geoblock; rm -rf /', version: 'v1.0.0' }, NOT_A_MODULE],
        [{ moduleName: `https://${GEOBLOCK}` }, NOT_A_MODULE],
        [{ moduleName: 'github.com/owner/-plugin' }, NOT_A_MODULE],
        [{ moduleName: `github.com/${'a'.repeat(300)}` }, NOT_A_MODULE],
        [{ moduleName: GEOBLOCK, version: 'latest' }, 'version: must be a module version such as v1.2.3'],
        [{ moduleName: GEOBLOCK, version: '1.2.3' }, 'version: must be a module version such as v1.2.3'],
        [{ moduleName: GEOBLOCK, version: `v1.2.3-${'a'.repeat(100)}` }, 'version: must be a module version such as v1.2.3'],
        [{ moduleName: GEOBLOCK, version: 3 }, 'version: must be a string'],
        [{ moduleName: '', version: 'x' }, 'moduleName: is required and must be a non-empty string; version: must be a module version such as v1.2.3'],
      ] as const) {
        const res = await ctx.http().post('/api/plugins/install').send(body);
        expect([body, res.status]).toEqual([body, 400]);
        expectRoutingError(res.body, 400, message);
      }
      const root = await ctx.http().post('/api/plugins/install').send([1]);
      expectRoutingError(root.body, 400, '(root): must be a JSON object; moduleName: is required and must be a non-empty string');
      expect(calls).toEqual([]);
    });

    it('what the service refuses: no catalogue version 400 naming version, a file that is no YAML mapping 409, an unexpected error 500', async () => {
      const unpinned = await ctx.http().post('/api/plugins/install').send({ moduleName: 'github.com/example/unpinned' });
      expect(unpinned.status).toBe(400);
      expectRoutingError(unpinned.body, 400, 'version: is required: the catalogue names no version for this module');
      const broken = await ctx.http().post('/api/plugins/install').send({ moduleName: 'github.com/example/broken-yaml' });
      expect(broken.status).toBe(409);
      expectRoutingError(broken.body, 409, /not a mapping$/);
      const crash = await ctx.http().post('/api/plugins/install').send({ moduleName: 'github.com/example/crash' });
      expect(crash.status).toBe(500);
      expectRoutingError(crash.body, 500, `Internal server error (ref ${TEST_REQUEST_ID})`);
    });
  });

  describe('DELETE /api/plugins/remove', () => {
    it('200; a module path or a bare experimental.plugins key reaches the service typed', async () => {
      expect((await ctx.http().delete('/api/plugins/remove').send({ moduleName: GEOBLOCK })).status).toBe(200);
      expect((await ctx.http().delete('/api/plugins/remove').send({ moduleName: 'bare_key-1.x', version: 'v1.0.0' })).status).toBe(200);
      expect(calls.map(([name, body]) => [name, ...typed(body)])).toEqual([
        ['remove', 'RemovePluginDto', { moduleName: GEOBLOCK }],
        ['remove', 'RemovePluginDto', { moduleName: 'bare_key-1.x' }],
      ]);
    });

    it('moduleName required, a module path or a plain key: 400 naming it; a plugin not declared: 404 from the service', async () => {
      for (const [body, message] of [
        [{}, 'moduleName: is required and must be a non-empty string'],
        [{ moduleName: 'not a module' }, NOT_A_MODULE],
        [{ moduleName: '-key' }, NOT_A_MODULE],
        [{ moduleName: 'x'.repeat(301) }, NOT_A_MODULE],
      ] as const) {
        const res = await ctx.http().delete('/api/plugins/remove').send(body);
        expect(res.status).toBe(400);
        expectRoutingError(res.body, 400, message);
      }
      expect(calls).toEqual([]);
      const absent = await ctx.http().delete('/api/plugins/remove').send({ moduleName: 'github.com/example/absent' });
      expect(absent.status).toBe(404);
      expectRoutingError(absent.body, 404, "Plugin 'github.com/example/absent' not found in configuration.");
    });
  });

  it('a form body: 415, before the service', async () => {
    const res = await ctx.http().post('/api/plugins/install').type('form').send(`moduleName=${GEOBLOCK}`);
    expect(res.status).toBe(415);
    expectRoutingError(res.body, 415, /must be application\/json/);
    expect(calls).toEqual([]);
  });
});
