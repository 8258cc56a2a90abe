import { NotFoundError } from '../common/errors';
import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import { PermissionService } from './permission.service';
import { PermissionsController } from './permissions.controller';

const pending = { id: 'per_1', sessionID: 'ses_1', messageID: 'msg_1', type: 'bash', title: 'Run ls', metadata: {}, time: { created: 1 } };

/** The permission service as the controller sees it, recording its calls: `per_missing` is no pending request. */
const calls: unknown[][] = [];
const unknown = (id: string) => (id === 'per_missing' ? Promise.reject(new NotFoundError(`Permission not found: ${id}`)) : Promise.resolve());
const permissions = {
  list: () => (calls.push(['list']), Promise.resolve([pending])),
  reply: (sessionID: string, permissionID: string, response: string) => (calls.push(['reply', sessionID, permissionID, response]), unknown(permissionID)),
  replyToRequest: (requestID: string, reply: string) => (calls.push(['replyToRequest', requestID, reply]), unknown(requestID)),
};

describe('PermissionsController at the boundary (permission.list, permission.respond, permission.reply)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([PermissionsController], [{ provide: PermissionService, useValue: permissions }]);
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('GET /permission: 200 with the pending requests', async () => {
    const res = await ctx.http().get('/permission');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([pending]);
    expect(calls).toEqual([['list']]);
  });

  describe('POST /session/:id/permissions/:permissionID (permission.respond)', () => {
    it.each(['once', 'always', 'reject'])('response %s: 200 `true` (not 201), the service receives both ids and the response', async (response) => {
      const res = await ctx.http().post('/session/ses_1/permissions/per_1').send({ response });
      expect(res.status).toBe(200);
      expect(res.text).toBe('true');
      expect(calls).toEqual([['reply', 'ses_1', 'per_1', response]]);
    });

    it.each([
      ['no response', {}],
      ['a response outside once/always/reject', { response: 'sometimes' }],
      ['a response that is not a string', { response: true }],
    ])('%s: 400 naming response, nothing answered', async (_case, body) => {
      const res = await ctx.http().post('/session/ses_1/permissions/per_1').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'response');
      expect(calls).toEqual([]);
    });

    it('a request that is not pending: 404 NotFoundError', async () => {
      const res = await ctx.http().post('/session/ses_1/permissions/per_missing').send({ response: 'once' });
      expect(res.status).toBe(404);
      expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('Permission not found: per_missing');
    });

    it('a NUL in the permission id: 400 naming permissionID, before the service', async () => {
      const res = await ctx.http().post('/session/ses_1/permissions/per_a%00b').send({ response: 'once' });
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'permissionID');
      expect(calls).toEqual([]);
    });
  });

  describe('POST /permission/:requestID/reply (permission.reply, opencode 1.18.33)', () => {
    it('200 `true`; the service receives the request id and the reply (the feedback message is accepted)', async () => {
      const res = await ctx.http().post('/permission/per_1/reply').send({ reply: 'reject', message: 'not that file' });
      expect(res.status).toBe(200);
      expect(res.text).toBe('true');
      expect(calls).toEqual([['replyToRequest', 'per_1', 'reject']]);
    });

    it('a request id without the per prefix: 400 naming requestID', async () => {
      const res = await ctx.http().post('/permission/msg_1/reply').send({ reply: 'once' });
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'requestID');
      expect(calls).toEqual([]);
    });

    it.each([
      ['no reply', {}, ['reply']],
      ['a reply outside once/always/reject', { reply: 'never' }, ['reply']],
      ['a message that is not a string', { reply: 'reject', message: 42 }, ['message']],
    ])('%s: 400 naming the field', async (_case, body, field) => {
      const res = await ctx.http().post('/permission/per_1/reply').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });

    it('an undeclared member: 400 unrecognized key (the reference body is closed; zod puts such keys at the root and names them in the message)', async () => {
      const res = await ctx.http().post('/permission/per_1/reply').send({ reply: 'once', remember: true });
      expect(res.status).toBe(400);
      expect(expectSessionBadRequest(res.body, []).error[0].message).toBe('Unrecognized key: "remember"');
      expect(calls).toEqual([]);
    });

    it('a request that is not pending: 404 NotFoundError', async () => {
      const res = await ctx.http().post('/permission/per_missing/reply').send({ reply: 'once' });
      expect(res.status).toBe(404);
      expectSessionError(res.body, 'NotFoundError');
    });
  });
});
