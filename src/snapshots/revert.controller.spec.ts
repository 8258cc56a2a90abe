import { BusyError, NotFoundError } from '../common/errors';
import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import { RevertController } from './revert.controller';
import { RevertService } from './revert.service';
import type { RevertInput } from './revert.service';

const instance = { directory: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;
const session = (id: string, revert?: RevertInput) => ({ id, title: 'a session', ...(revert ? { revert } : {}) });

/** The revert service as the controller sees it, recording its calls: `ses_busy` runs a turn, `msg_missing` is unknown. */
const calls: unknown[][] = [];
const refuse = (sessionID: string, messageID?: string): Promise<never> | undefined => {
  if (sessionID === 'ses_busy') return Promise.reject(new BusyError(`Session ${sessionID} is busy`));
  if (messageID === 'msg_missing') return Promise.reject(new NotFoundError(`Message not found: ${messageID}`));
  return undefined;
};
const reverts = {
  revert: (inst: Instance, sessionID: string, input: RevertInput) => (
    calls.push(['revert', inst.directory, sessionID, input]), refuse(sessionID, input.messageID) ?? Promise.resolve(session(sessionID, input))
  ),
  unrevert: (inst: Instance, sessionID: string) => (calls.push(['unrevert', inst.directory, sessionID]), refuse(sessionID) ?? Promise.resolve(session(sessionID))),
};

describe('RevertController at the boundary (session.revert, session.unrevert)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([RevertController], [{ provide: RevertService, useValue: reverts }], { instance });
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  describe('POST /session/:id/revert', () => {
    it('200 (not 201) with the session; the service receives the instance and the checked ids, nothing else', async () => {
      const res = await ctx.http().post('/session/ses_1/revert').send({ messageID: 'msg_2', partID: 'prt_3', extra: 'ignored' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(session('ses_1', { messageID: 'msg_2', partID: 'prt_3' }));
      expect(calls).toEqual([['revert', '/work/project', 'ses_1', { messageID: 'msg_2', partID: 'prt_3' }]]);
    });

    it.each([
      ['no messageID', {}, ['messageID']],
      ['a messageID without the msg prefix', { messageID: 'prt_1' }, ['messageID']],
      ['a partID without the prt prefix', { messageID: 'msg_1', partID: 'msg_2' }, ['partID']],
      ['a messageID that is not a string', { messageID: 7 }, ['messageID']],
    ])('%s: 400 naming the field, nothing reverted', async (_case, body, field) => {
      const res = await ctx.http().post('/session/ses_1/revert').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });

    it('no body: 400 naming messageID', async () => {
      const res = await ctx.http().post('/session/ses_1/revert');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'messageID');
      expect(calls).toEqual([]);
    });

    it('an unknown message: 404 NotFoundError', async () => {
      const res = await ctx.http().post('/session/ses_1/revert').send({ messageID: 'msg_missing' });
      expect(res.status).toBe(404);
      expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('Message not found: msg_missing');
    });

    it('a busy session: 400 BusyError', async () => {
      const res = await ctx.http().post('/session/ses_busy/revert').send({ messageID: 'msg_1' });
      expect(res.status).toBe(400);
      expect(expectSessionError(res.body, 'BusyError').data.message).toBe('Session ses_busy is busy');
    });
  });

  describe('POST /session/:id/unrevert', () => {
    it('200 (not 201) with the session; the service receives the instance and the session id', async () => {
      const res = await ctx.http().post('/session/ses_1/unrevert');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(session('ses_1'));
      expect(calls).toEqual([['unrevert', '/work/project', 'ses_1']]);
    });

    it('a busy session: 400 BusyError', async () => {
      const res = await ctx.http().post('/session/ses_busy/unrevert');
      expect(res.status).toBe(400);
      expectSessionError(res.body, 'BusyError');
    });

    it('a NUL in the session id: 400 naming sessionID, nothing unreverted', async () => {
      const res = await ctx.http().post('/session/ses_a%00b/unrevert');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'sessionID');
      expect(calls).toEqual([]);
    });
  });
});
