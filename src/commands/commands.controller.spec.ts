import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../test/support/controller-setup';
import { expectSessionBadRequest } from '../../test/support/error-bodies';
import { CommandService } from './command.service';
import { CommandsController } from './commands.controller';

// What DirectoryMiddleware would have put on the request (the spec boots the controller without it, as the sessions spec does).
const instance = { directory: '/work/project', worktree: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;
const failing = { directory: '/work/failing', worktree: '/work/failing', project: { id: 'prj_2' } } as unknown as Instance;

/** The command service: the instances it was asked for; the `failing` one fails unexpectedly. */
const asked: Instance[] = [];
const answer = <T>(value: T) => (seen: Instance) => {
  asked.push(seen);
  return seen === failing ? Promise.reject(new Error('EACCES: /work/failing/.opencode/command')) : Promise.resolve(value);
};
const commands = { list: answer([{ name: 'init', template: 'Initialise' }]), listV2: answer([{ name: 'init' }]) };

describe('CommandsController at the boundary (command.list, v2.command.list)', () => {
  let ctx: ControllerContext;
  const context = { instance };

  beforeAll(async () => {
    // The context object is shared by reference: a test switches the request's Instance by replacing its member.
    ctx = await controllerSetup([CommandsController], [{ provide: CommandService, useValue: commands }], context);
  });
  afterAll(() => ctx.close());
  beforeEach(() => {
    asked.length = 0;
    context.instance = instance;
  });

  it('GET /command: 200 with the commands of the request instance', async () => {
    const res = await ctx.http().get('/command');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ name: 'init', template: 'Initialise' }]);
    expect(asked).toEqual([instance]);
  });

  it('GET /api/command: 200 with the commands located in the request instance', async () => {
    const res = await ctx.http().get('/api/command');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ location: { directory: '/work/project', project: { id: 'prj_1', directory: '/work/project' } }, data: [{ name: 'init' }] });
    expect(asked).toEqual([instance]);
  });

  it.each([
    ['GET /command with directory given twice', '/command?directory=/a&directory=/b', 'directory'],
    ['GET /api/command with location[directory] given twice', '/api/command?location[directory]=/a&location[directory]=/b', ['location', 'directory']],
  ])('%s: 400 naming the field, service untouched', async (_case, path, field) => {
    const res = await ctx.http().get(path);
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, field);
    expect(asked).toEqual([]);
  });

  it.each(['/command', '/api/command'])('GET %s when the service fails unexpectedly: 500 UnknownError with the request id, nothing of the error', async (path) => {
    context.instance = failing;
    const res = await ctx.http().get(path);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ name: 'UnknownError', data: { message: 'Unexpected server error', ref: TEST_REQUEST_ID } });
  });
});
