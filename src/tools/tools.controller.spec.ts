import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest } from '../../test/support/error-bodies';
import { ToolRegistry } from './tool-registry.service';
import { ToolsController } from './tools.controller';

const tool = { id: 'read', description: 'Reads a file', parameters: { type: 'object' } };

/** What the registry was asked. */
const calls: unknown[][] = [];
const registry = {
  ids: () => (calls.push(['ids']), ['read', 'bash']),
  list: (provider: string, model: string) => (calls.push(['list', provider, model]), [tool]),
};

describe('ToolsController at the boundary (tool.ids, tool.list)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([ToolsController], [{ provide: ToolRegistry, useValue: registry }]);
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('GET /experimental/tool/ids: 200 with the tool ids', async () => {
    const res = await ctx.http().get('/experimental/tool/ids');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(['read', 'bash']);
    expect(calls).toEqual([['ids']]);
  });

  it('GET /experimental/tool: 200 with the tools; the registry receives provider and model', async () => {
    const res = await ctx.http().get('/experimental/tool?provider=openai&model=gpt-5');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([tool]);
    expect(calls).toEqual([['list', 'openai', 'gpt-5']]);
  });

  it.each([
    ['without provider', '/experimental/tool?model=gpt-5', 'provider'],
    ['without model', '/experimental/tool?provider=openai', 'model'],
    ['with provider given twice', '/experimental/tool?provider=a&provider=b&model=m', 'provider'],
    ['with a NUL in model', '/experimental/tool?provider=openai&model=gpt%00', 'model'],
  ])('GET /experimental/tool %s: 400 naming the field, registry untouched', async (_case, path, field) => {
    const res = await ctx.http().get(path);
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, field);
    expect(calls).toEqual([]);
  });

  it('GET /experimental/tool/ids with directory given twice: 400 naming directory', async () => {
    const res = await ctx.http().get('/experimental/tool/ids?directory=/a&directory=/b');
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, 'directory');
    expect(calls).toEqual([]);
  });
});
