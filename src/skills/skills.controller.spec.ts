import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest } from '../../test/support/error-bodies';
import { SkillService } from './skill.service';
import { SkillsController } from './skills.controller';

// What DirectoryMiddleware would have put on the request (the spec boots the controller without it, as the sessions spec does).
const instance = { directory: '/work/project', worktree: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;
const skill = { name: 'review', description: 'Reviews a change', location: '/work/project/.opencode/skill/review/SKILL.md' };

/** The skill service: the instances it was asked for. */
const asked: Instance[] = [];
const skills = { list: (seen: Instance) => (asked.push(seen), Promise.resolve([skill])) };

describe('SkillsController at the boundary (app.skills, v2.skill.list)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([SkillsController], [{ provide: SkillService, useValue: skills }], { instance });
  });
  afterAll(() => ctx.close());
  beforeEach(() => (asked.length = 0));

  it('GET /skill: 200 with the skills of the request instance', async () => {
    const res = await ctx.http().get('/skill').query({ directory: '/work/project', workspace: 'wrk_1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([skill]);
    expect(asked).toEqual([instance]);
  });

  it('GET /api/skill: 200 with the same skills located in the request instance', async () => {
    const res = await ctx.http().get('/api/skill');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ location: { directory: '/work/project', project: { id: 'prj_1', directory: '/work/project' } }, data: [skill] });
    expect(asked).toEqual([instance]);
  });

  it.each([
    ['GET /skill with workspace given twice', '/skill?workspace=a&workspace=b', 'workspace'],
    ['GET /skill with directory given twice', '/skill?directory=/a&directory=/b', 'directory'],
    ['GET /api/skill with a location member the reference does not declare', '/api/skill?location[branch]=main', 'location'],
  ])('%s: 400 naming the field, service untouched', async (_case, path, field) => {
    const res = await ctx.http().get(path);
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, field);
    expect(asked).toEqual([]);
  });
});
