import { NotFoundError } from '../common/errors';
import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import type { MessageWithParts, Part } from './message.entity';
import { MessageService } from './message.service';
import { MessagesController } from './messages.controller';

const instance = { directory: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;

function message(sessionID: string, id: string): MessageWithParts {
  return { info: { id, sessionID, role: 'user', time: { created: 1 } }, parts: [] } as unknown as MessageWithParts;
}

const textPart = (over: Partial<Record<string, unknown>> = {}) => ({ id: 'prt_1', sessionID: 'ses_1', messageID: 'msg_1', type: 'text', text: 'edited', ...over });

/** The message service as the controller sees it, recording its calls: `ses_missing` and `msg_missing` are unknown. */
const calls: unknown[][] = [];
const missing = (sessionID: string, messageID?: string): Promise<never> | undefined => {
  if (sessionID === 'ses_missing') return Promise.reject(new NotFoundError(`Session not found: ${sessionID}`));
  if (messageID === 'msg_missing') return Promise.reject(new NotFoundError(`Message not found: ${messageID}`));
  return undefined;
};
const messages = {
  list: (sessionID: string, options: { limit?: number }) => (calls.push(['list', sessionID, options]), missing(sessionID) ?? Promise.resolve([message(sessionID, 'msg_1')])),
  get: (sessionID: string, messageID: string) => (calls.push(['get', sessionID, messageID]), missing(sessionID, messageID) ?? Promise.resolve(message(sessionID, messageID))),
  removePart: (sessionID: string, messageID: string, partID: string) => (calls.push(['removePart', sessionID, messageID, partID]), missing(sessionID, messageID) ?? Promise.resolve()),
  updatePart: (part: Part) => (calls.push(['updatePart', part]), Promise.resolve(part)),
  fork: (inst: Instance, sessionID: string, messageID?: string) => (
    calls.push(['fork', inst.directory, sessionID, messageID]), missing(sessionID, messageID) ?? Promise.resolve({ id: 'ses_fork', title: 'forked' })
  ),
};

describe('MessagesController at the boundary (messages, message, part delete/update, fork)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([MessagesController], [{ provide: MessageService, useValue: messages }], { instance });
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  describe('GET /session/:id/message (session.messages)', () => {
    it('200 with the list; without a limit the service is asked for all', async () => {
      const res = await ctx.http().get('/session/ses_1/message');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([message('ses_1', 'msg_1')]);
      expect(calls).toEqual([['list', 'ses_1', { limit: undefined }]]);
    });

    it('a limit reaches the service as a number', async () => {
      expect((await ctx.http().get('/session/ses_1/message?limit=5')).status).toBe(200);
      expect(calls).toEqual([['list', 'ses_1', { limit: 5 }]]);
    });

    it.each([
      ['not a number', 'limit=lots'],
      ['infinite once read', 'limit=1e309'],
    ])('a limit %s: 400 naming limit, the service untouched', async (_case, query) => {
      const res = await ctx.http().get(`/session/ses_1/message?${query}`);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'limit');
      expect(calls).toEqual([]);
    });

    it('an unknown session: 404 NotFoundError', async () => {
      const res = await ctx.http().get('/session/ses_missing/message');
      expect(res.status).toBe(404);
      expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('Session not found: ses_missing');
    });
  });

  describe('GET /session/:id/message/:messageID (session.message)', () => {
    it('200 with the message; the service receives both ids', async () => {
      const res = await ctx.http().get('/session/ses_1/message/msg_7');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(message('ses_1', 'msg_7'));
      expect(calls).toEqual([['get', 'ses_1', 'msg_7']]);
    });

    it('an unknown message: 404 NotFoundError', async () => {
      const res = await ctx.http().get('/session/ses_1/message/msg_missing');
      expect(res.status).toBe(404);
      expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('Message not found: msg_missing');
    });

    it('a NUL in the message id: 400 naming messageID, before the service', async () => {
      const res = await ctx.http().get('/session/ses_1/message/msg_a%00b');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'messageID');
      expect(calls).toEqual([]);
    });
  });

  describe('DELETE /session/:id/message/:messageID/part/:partID (part.delete)', () => {
    it('200 `true`; the service receives the three ids', async () => {
      const res = await ctx.http().delete('/session/ses_1/message/msg_1/part/prt_1');
      expect(res.status).toBe(200);
      expect(res.text).toBe('true');
      expect(calls).toEqual([['removePart', 'ses_1', 'msg_1', 'prt_1']]);
    });

    it('an unknown message: 404 NotFoundError', async () => {
      const res = await ctx.http().delete('/session/ses_1/message/msg_missing/part/prt_1');
      expect(res.status).toBe(404);
      expectSessionError(res.body, 'NotFoundError');
    });
  });

  describe('PATCH /session/:id/message/:messageID/part/:partID (part.update)', () => {
    it('200 with the stored part; the message is looked up, then the checked part is stored', async () => {
      const res = await ctx.http().patch('/session/ses_1/message/msg_1/part/prt_1').send(textPart());
      expect(res.status).toBe(200);
      expect(res.body).toEqual(textPart());
      expect(calls).toEqual([
        ['get', 'ses_1', 'msg_1'],
        ['updatePart', textPart()],
      ]);
    });

    it.each([
      ['id', { id: 'prt_other' }],
      ['messageID', { messageID: 'msg_other' }],
      ['sessionID', { sessionID: 'ses_other' }],
    ])('a part whose %s differs from the path: 400 naming it, nothing stored', async (field, over) => {
      const res = await ctx.http().patch('/session/ses_1/message/msg_1/part/prt_1').send(textPart(over));
      expect(res.status).toBe(400);
      expect(expectSessionBadRequest(res.body, field).error[0].message).toMatch(/Part mismatch/);
      expect(calls).toEqual([]);
    });

    it('a text part without its text: 400 naming the field, nothing stored', async () => {
      const { text: _text, ...part } = textPart();
      const res = await ctx.http().patch('/session/ses_1/message/msg_1/part/prt_1').send(part);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'text');
      expect(calls).toEqual([]);
    });

    it('no body at all: 400, nothing stored', async () => {
      const res = await ctx.http().patch('/session/ses_1/message/msg_1/part/prt_1');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body);
      expect(calls).toEqual([]);
    });

    it('a part of an unknown message: 404 NotFoundError, nothing stored', async () => {
      const res = await ctx
        .http()
        .patch('/session/ses_1/message/msg_missing/part/prt_1')
        .send(textPart({ messageID: 'msg_missing' }));
      expect(res.status).toBe(404);
      expectSessionError(res.body, 'NotFoundError');
      expect(calls).toEqual([['get', 'ses_1', 'msg_missing']]);
    });
  });

  describe('POST /session/:id/fork (session.fork)', () => {
    it('200 (not 201) with the new session; the service receives the instance, the session and the message', async () => {
      const res = await ctx.http().post('/session/ses_1/fork').send({ messageID: 'msg_3' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: 'ses_fork', title: 'forked' });
      expect(calls).toEqual([['fork', '/work/project', 'ses_1', 'msg_3']]);
    });

    it('without a body the whole session is forked', async () => {
      expect((await ctx.http().post('/session/ses_1/fork')).status).toBe(200);
      expect(calls).toEqual([['fork', '/work/project', 'ses_1', undefined]]);
    });

    it('a session id without the ses prefix: 400 naming sessionID', async () => {
      const res = await ctx.http().post('/session/msg_1/fork').send({});
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'sessionID');
      expect(calls).toEqual([]);
    });

    it('a messageID without the msg prefix: 400 naming messageID', async () => {
      const res = await ctx.http().post('/session/ses_1/fork').send({ messageID: 'prt_1' });
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'messageID');
      expect(calls).toEqual([]);
    });

    it('an unknown session: 404 NotFoundError', async () => {
      const res = await ctx.http().post('/session/ses_missing/fork').send({});
      expect(res.status).toBe(404);
      expectSessionError(res.body, 'NotFoundError');
    });
  });
});
