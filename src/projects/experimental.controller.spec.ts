import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest } from '../../test/support/error-bodies';
import { ExperimentalController } from './experimental.controller';

describe('ExperimentalController at the boundary (the empty states newer clients read at start)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([ExperimentalController], []);
  });
  afterAll(() => ctx.close());

  it.each([
    ['/experimental/resource', {}],
    ['/experimental/capabilities', { backgroundSubagents: false }],
    ['/experimental/console', { consoleManagedProviders: [], switchableOrgCount: 0 }],
    ['/experimental/workspace', []],
    ['/experimental/workspace/status', []],
  ])('GET %s: 200 with the empty state, directory and workspace accepted', async (path, body) => {
    const res = await ctx.http().get(path).query({ directory: '/work/project', workspace: 'wrk_1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(body);
  });

  it.each(['/experimental/resource', '/experimental/capabilities', '/experimental/console', '/experimental/workspace', '/experimental/workspace/status'])(
    'GET %s with workspace given twice: 400 naming workspace',
    async (path) => {
      const res = await ctx.http().get(`${path}?workspace=a&workspace=b`);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'workspace');
    },
  );

  it('GET /experimental/workspace with a NUL in directory: 400 naming directory', async () => {
    const res = await ctx.http().get('/experimental/workspace?directory=/a%00b');
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, 'directory');
  });
});
