import { ConfigInvalidError } from '../config/config-errors';
import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import { AgentService } from './agent.service';
import { AgentsController } from './agents.controller';

// What DirectoryMiddleware would have put on the request (the spec boots the controller without it, as the sessions spec does).
const instance = { directory: '/work/project', worktree: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;
const broken = { directory: '/work/broken', worktree: '/work/broken', project: { id: 'prj_2' } } as unknown as Instance;

/** The agent service: the instances it was asked for; the `broken` one has an agent file that breaks the Config schema. */
const asked: Instance[] = [];
const answer = <T>(value: T) => (seen: Instance) => {
  asked.push(seen);
  return seen === broken ? Promise.reject(new ConfigInvalidError('/work/broken/.opencode/agent/x.md', [{ path: ['mode'], message: 'Invalid option' }])) : Promise.resolve(value);
};
const agents = { list: answer([{ name: 'build', mode: 'primary' }]), listV2: answer([{ id: 'build' }]) };

describe('AgentsController at the boundary (app.agents, v2.agent.list)', () => {
  let ctx: ControllerContext;
  const context = { instance };

  beforeAll(async () => {
    // The context object is shared by reference: a test switches the request's Instance by replacing its member.
    ctx = await controllerSetup([AgentsController], [{ provide: AgentService, useValue: agents }], context);
  });
  afterAll(() => ctx.close());
  beforeEach(() => {
    asked.length = 0;
    context.instance = instance;
  });

  it('GET /agent: 200 with the agents of the request instance', async () => {
    const res = await ctx.http().get('/agent');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ name: 'build', mode: 'primary' }]);
    expect(asked).toEqual([instance]);
  });

  it('GET /api/agent: 200 with the agents located in the request instance', async () => {
    const res = await ctx.http().get('/api/agent?location[directory]=/work/project&location[workspace]=wrk_1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ location: { directory: '/work/project', project: { id: 'prj_1', directory: '/work/project' } }, data: [{ id: 'build' }] });
    expect(asked).toEqual([instance]);
  });

  it.each([
    ['GET /agent with directory given twice', '/agent?directory=/a&directory=/b', 'directory'],
    ['GET /api/agent with a location member the reference does not declare', '/api/agent?location[branch]=main', 'location'],
  ])('%s: 400 naming the field, service untouched', async (_case, path, field) => {
    const res = await ctx.http().get(path);
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, field);
    expect(asked).toEqual([]);
  });

  it.each(['/agent', '/api/agent'])('GET %s where an agent file breaks the Config schema: 400 ConfigInvalidError naming file and field', async (path) => {
    context.instance = broken;
    const res = await ctx.http().get(path);
    expect(res.status).toBe(400);
    expect(expectSessionError(res.body, 'ConfigInvalidError').data.message).toBe('Invalid config /work/broken/.opencode/agent/x.md: mode: Invalid option');
  });
});
