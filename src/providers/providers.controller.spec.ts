import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../test/support/controller-setup';
import { expectSessionBadRequest } from '../../test/support/error-bodies';
import { ProviderService } from './provider.service';
import { ProvidersController } from './providers.controller';

// What DirectoryMiddleware would have put on the request (the spec boots the controller without it, as the sessions spec does).
const instance = { directory: '/work/project', worktree: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;
const location = { directory: '/work/project', project: { id: 'prj_1', directory: '/work/project' } };

/** What the provider service was asked (the Instance is asserted to be the request's, then left out). */
const calls: unknown[][] = [];
const answer = <T>(name: string, value: T) => (seen: Instance) => {
  expect(seen).toBe(instance);
  calls.push([name]);
  return Promise.resolve(value);
};
const providers = {
  configProviders: answer('configProviders', { providers: [], default: {} }),
  providerList: answer('providerList', { all: [], default: {}, connected: [] }),
  providersV2: answer('providersV2', [{ id: 'openai' }]),
  modelsV2: answer('modelsV2', [{ id: 'gpt-5', providerID: 'openai' }]),
  integrationsV2: answer('integrationsV2', []),
  setAuth: (providerID: string, auth: unknown) => {
    calls.push(['setAuth', providerID, auth]);
    return providerID === 'broken' ? Promise.reject(new Error('EACCES writing /home/u/.local/share/auth.json')) : Promise.resolve();
  },
};

describe('ProvidersController at the boundary (config.providers, provider.*, auth.set, v2 lists)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([ProvidersController], [{ provide: ProviderService, useValue: providers }], { instance });
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it.each([
    ['/config/providers', 'configProviders', { providers: [], default: {} }],
    ['/provider', 'providerList', { all: [], default: {}, connected: [] }],
    ['/api/provider', 'providersV2', { location, data: [{ id: 'openai' }] }],
    ['/api/model', 'modelsV2', { location, data: [{ id: 'gpt-5', providerID: 'openai' }] }],
    ['/api/integration', 'integrationsV2', { location, data: [] }],
  ])('GET %s: 200 with the service answer for the request instance', async (path, method, body) => {
    const res = await ctx.http().get(path);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(body);
    expect(calls).toEqual([[method]]);
  });

  it('GET /provider/auth: 200 with no login methods', async () => {
    const res = await ctx.http().get('/provider/auth');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });

  it.each([
    ['GET /config/providers with directory given twice', '/config/providers?directory=/a&directory=/b', 'directory'],
    ['GET /provider with directory given twice', '/provider?directory=/a&directory=/b', 'directory'],
    ['GET /api/model with a location member the reference does not declare', '/api/model?location[branch]=main', 'location'],
    ['GET /api/provider with location[directory] given twice', '/api/provider?location[directory]=/a&location[directory]=/b', ['location', 'directory']],
  ])('%s: 400 naming the field', async (_case, path, field) => {
    const res = await ctx.http().get(path);
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, field);
    expect(calls).toEqual([]);
  });

  describe('PUT /auth/:providerID (auth.set)', () => {
    it.each([
      ['an API key', { type: 'api', key: 'sk-test' }],
      ['OAuth tokens', { type: 'oauth', refresh: 'r', access: 'a', expires: 1 }],
      ['a well-known token', { type: 'wellknown', key: 'k', token: 't' }],
    ])('%s: 200 `true`; the service receives the provider id and the credentials', async (_case, body) => {
      const res = await ctx.http().put('/auth/openai').send(body);
      expect(res.status).toBe(200);
      expect(res.body).toBe(true);
      expect(calls).toEqual([['setAuth', 'openai', body]]);
    });

    it.each([
      ['an unknown type', { type: 'password', key: 'sk-secret' }, 'type'],
      ['no body', undefined, 'type'],
      ['a key that is not a string', { type: 'api', key: 5 }, 'key'],
    ])('%s: 400, service untouched', async (_case, body, field) => {
      const res = await ctx.http().put('/auth/openai').send(body);
      expect(res.status).toBe(400);
      expect(expectSessionBadRequest(res.body).error.map((issue) => issue.path)).toContainEqual([field]);
      expect(calls).toEqual([]);
    });

    // Bug: the body matches no branch of the reference's `Auth` union, and the issues list each
    // branch's first failure in order: the first names `refresh` (OAuth's required members), not the
    // `key` the `api` body lacks (`key` only comes second, then the union error).
    it.todo('PUT /auth/:id with {type:"api"} and no key: 400 whose first issue names `key` (today: `refresh`, from the OAuth branch)');

    it('a refused body never echoes the credentials it carried', async () => {
      const res = await ctx.http().put('/auth/openai').send({ type: 'password', key: 'sk-secret', access: 'at-secret', note: 'kept' });
      expect(res.status).toBe(400);
      expect(expectSessionBadRequest(res.body).data).toEqual({ type: 'password', key: '[redacted]', access: '[redacted]', note: 'kept' });
      expect(res.text).not.toContain('secret');
    });

    it('a NUL in the provider id: 400 naming providerID', async () => {
      const res = await ctx.http().put('/auth/open%00ai').send({ type: 'api', key: 'sk-test' });
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'providerID');
      expect(calls).toEqual([]);
    });

    it('an unexpected service error: 500 UnknownError with the request id, nothing of the error', async () => {
      const res = await ctx.http().put('/auth/broken').send({ type: 'api', key: 'sk-test' });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ name: 'UnknownError', data: { message: 'Unexpected server error', ref: TEST_REQUEST_ID } });
    });
  });
});
