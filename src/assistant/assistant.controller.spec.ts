import { BusyError, NotFoundError } from '../common/errors';
import type { MessageWithParts } from '../messages/message.entity';
import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import { AssistantController } from './assistant.controller';
import { CommandRunner } from './command-runner.service';
import { CompactionRunner } from './compaction-runner.service';
import { PromptLoop } from './prompt-loop.service';
import { ShellRunner } from './shell-runner.service';

const instance = { directory: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;

function reply(sessionID: string, text = 'done'): MessageWithParts {
  return { info: { id: 'msg_reply', sessionID, role: 'assistant' }, parts: [{ id: 'prt_1', sessionID, messageID: 'msg_reply', type: 'text', text }] } as unknown as MessageWithParts;
}

/**
 * The runners as the controller sees them, recording what they were asked. `ses_missing` is an
 * unknown session, `ses_busy` one that already runs a turn, `ses_broken` an unexpected failure.
 */
const calls: unknown[][] = [];
const refuse = (sessionID: string): Promise<never> | undefined => {
  if (sessionID === 'ses_missing') return Promise.reject(new NotFoundError(`Session not found: ${sessionID}`));
  if (sessionID === 'ses_busy') return Promise.reject(new BusyError(`Session ${sessionID} is busy`, { sessionID }));
  if (sessionID === 'ses_broken') return Promise.reject(new Error('disk on fire at /secret/path'));
  return undefined;
};
let promptOutcome: () => Promise<MessageWithParts>;
const loop = {
  admit: (sessionID: string, input: unknown) => (calls.push(['admit', sessionID, input]), refuse(sessionID) ?? Promise.resolve()),
  prompt: (inst: Instance, sessionID: string, input: unknown) => (calls.push(['prompt', inst.directory, sessionID, input]), promptOutcome()),
  abort: (sessionID: string) => void calls.push(['abort', sessionID]),
};
const shell = {
  run: (inst: Instance, sessionID: string, input: unknown) => (calls.push(['shell', inst.directory, sessionID, input]), refuse(sessionID) ?? Promise.resolve(reply(sessionID, 'hi'))),
};
const commands = {
  run: (inst: Instance, sessionID: string, input: unknown) => (calls.push(['command', inst.directory, sessionID, input]), refuse(sessionID) ?? Promise.resolve(reply(sessionID))),
};
const compaction = {
  summarize: (inst: Instance, sessionID: string, input: unknown) => (calls.push(['summarize', inst.directory, sessionID, input]), refuse(sessionID) ?? Promise.resolve(true)),
};

const TEXT = { parts: [{ type: 'text', text: 'hi' }] };

describe('AssistantController at the boundary (prompt, prompt_async, command, shell, abort, init, summarize)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup(
      [AssistantController],
      [
        { provide: PromptLoop, useValue: loop },
        { provide: ShellRunner, useValue: shell },
        { provide: CommandRunner, useValue: commands },
        { provide: CompactionRunner, useValue: compaction },
      ],
      { instance },
    );
  });
  afterAll(() => ctx.close());
  beforeEach(() => {
    calls.length = 0;
    promptOutcome = () => Promise.resolve(reply('ses_1'));
  });

  describe('POST /session/:id/message (session.prompt)', () => {
    it('200 with the finished message; the loop is admitted then run with the checked body and the instance', async () => {
      const body = { ...TEXT, model: { providerID: 'openai', modelID: 'gpt-5' }, agent: 'build', messageID: 'msg_user' };
      const res = await ctx.http().post('/session/ses_1/message').send(body);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual(reply('ses_1'));
      expect(calls).toEqual([
        ['admit', 'ses_1', body],
        ['prompt', '/work/project', 'ses_1', body],
      ]);
    });

    it.each([
      ['no parts', {}, ['parts']],
      ['parts that are not a list', { parts: 'hi' }, ['parts']],
      ['a text part without its text', { parts: [{ type: 'text' }] }, ['parts', 0, 'text']],
      ['a messageID without the msg prefix', { ...TEXT, messageID: 'ses_1' }, ['messageID']],
      ['a model without its modelID', { ...TEXT, model: { providerID: 'openai' } }, ['model', 'modelID']],
      ['a noReply that is not a boolean', { ...TEXT, noReply: 'yes' }, ['noReply']],
      ['a tools map of non-booleans', { ...TEXT, tools: { bash: 'off' } }, ['tools', 'bash']],
    ])('%s: 400 BadRequestError naming the field, nothing admitted', async (_case, body, field) => {
      const res = await ctx.http().post('/session/ses_1/message').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });

    it('an unknown part type: 400 naming the part', async () => {
      const res = await ctx
        .http()
        .post('/session/ses_1/message')
        .send({ parts: [{ type: 'image', text: 'x' }] });
      expect(res.status).toBe(400);
      expect(expectSessionBadRequest(res.body).error[0].path.slice(0, 2)).toEqual(['parts', 0]);
      expect(calls).toEqual([]);
    });

    it('a session the loop refuses to admit: 404 NotFoundError before any 200, the turn never runs', async () => {
      const res = await ctx.http().post('/session/ses_missing/message').send(TEXT);
      expect(res.status).toBe(404);
      expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('Session not found: ses_missing');
      expect(calls.map((c) => c[0])).toEqual(['admit']);
    });

    it('a NUL in a part text: 400 naming the part text, before the loop', async () => {
      const res = await ctx
        .http()
        .post('/session/ses_1/message')
        .send({ parts: [{ type: 'text', text: 'a\u0000b' }] });
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, ['parts', 0, 'text']);
      expect(calls).toEqual([]);
    });
  });

  describe('POST /session/:id/prompt_async (session.prompt_async)', () => {
    it('204 with no body; the loop is admitted and then runs the checked body', async () => {
      const res = await ctx.http().post('/session/ses_1/prompt_async').send(TEXT);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(calls).toEqual([
        ['admit', 'ses_1', TEXT],
        ['prompt', '/work/project', 'ses_1', TEXT],
      ]);
    });

    it('a turn that fails after the 204 is only logged: the answer stays 204', async () => {
      promptOutcome = () => Promise.reject(new Error('model down'));
      const res = await ctx.http().post('/session/ses_1/prompt_async').send(TEXT);
      expect(res.status).toBe(204);
    });

    it('no parts: 400 naming parts, nothing admitted', async () => {
      const res = await ctx.http().post('/session/ses_1/prompt_async').send({ agent: 'build' });
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, ['parts']);
      expect(calls).toEqual([]);
    });

    it('an unknown session: 404 NotFoundError, the turn never runs', async () => {
      const res = await ctx.http().post('/session/ses_missing/prompt_async').send(TEXT);
      expect(res.status).toBe(404);
      expectSessionError(res.body, 'NotFoundError');
      expect(calls.map((c) => c[0])).toEqual(['admit']);
    });
  });

  describe('POST /session/:id/command (session.command)', () => {
    it('200 with the message; the runner receives the checked body', async () => {
      const body = { command: 'review', arguments: 'src/', agent: 'plan', model: 'openai/gpt-5', messageID: 'msg_cmd' };
      const res = await ctx.http().post('/session/ses_1/command').send(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(reply('ses_1'));
      expect(calls).toEqual([['command', '/work/project', 'ses_1', body]]);
    });

    it.each([
      ['no command', { arguments: '' }, ['command']],
      ['no arguments', { command: 'review' }, ['arguments']],
      ['a model that is not a string', { command: 'review', arguments: '', model: { providerID: 'a', modelID: 'b' } }, ['model']],
      ['a messageID without the msg prefix', { command: 'review', arguments: '', messageID: 'x' }, ['messageID']],
    ])('%s: 400 naming the field, the runner untouched', async (_case, body, field) => {
      const res = await ctx.http().post('/session/ses_1/command').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });

    it('a busy session: 400 BusyError', async () => {
      const res = await ctx.http().post('/session/ses_busy/command').send({ command: 'review', arguments: '' });
      expect(res.status).toBe(400);
      expect(expectSessionError(res.body, 'BusyError').data.message).toBe('Session ses_busy is busy');
    });
  });

  describe('POST /session/:id/shell (session.shell)', () => {
    it('200 with the message; the runner receives the checked body', async () => {
      const body = { agent: 'build', command: 'echo hi', model: { providerID: 'openai', modelID: 'gpt-5' } };
      const res = await ctx.http().post('/session/ses_1/shell').send(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(reply('ses_1', 'hi'));
      expect(calls).toEqual([['shell', '/work/project', 'ses_1', body]]);
    });

    it.each([
      ['no agent', { command: 'echo hi' }, ['agent']],
      ['no command', { agent: 'build' }, ['command']],
      ['a command that is not a string', { agent: 'build', command: ['echo', 'hi'] }, ['command']],
      ['a model without its providerID', { agent: 'build', command: 'ls', model: { modelID: 'x' } }, ['model', 'providerID']],
    ])('%s: 400 naming the field, the runner untouched', async (_case, body, field) => {
      const res = await ctx.http().post('/session/ses_1/shell').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });

    it('a busy session: 400 BusyError; an unknown one: 404 NotFoundError', async () => {
      const busy = await ctx.http().post('/session/ses_busy/shell').send({ agent: 'build', command: 'ls' });
      expect(busy.status).toBe(400);
      expectSessionError(busy.body, 'BusyError');
      const missing = await ctx.http().post('/session/ses_missing/shell').send({ agent: 'build', command: 'ls' });
      expect(missing.status).toBe(404);
      expectSessionError(missing.body, 'NotFoundError');
    });

    it('an unexpected failure: 500 UnknownError with the request id, nothing of the error', async () => {
      const res = await ctx.http().post('/session/ses_broken/shell').send({ agent: 'build', command: 'ls' });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ name: 'UnknownError', data: { message: 'Unexpected server error', ref: TEST_REQUEST_ID } });
    });
  });

  describe('POST /session/:id/abort (session.abort)', () => {
    it('200 `true` (not 201), the loop asked to abort that session; no body needed', async () => {
      const res = await ctx.http().post('/session/ses_1/abort');
      expect(res.status).toBe(200);
      expect(res.text).toBe('true');
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(calls).toEqual([['abort', 'ses_1']]);
    });

    it('a NUL in the session id: 400 naming sessionID, nothing aborted', async () => {
      const res = await ctx.http().post('/session/ses_a%00b/abort');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'sessionID');
      expect(calls).toEqual([]);
    });
  });

  describe('POST /session/:id/init (session.init)', () => {
    it('200 `true`; the init command runs with the model and the message id', async () => {
      const res = await ctx.http().post('/session/ses_1/init').send({ providerID: 'openai', modelID: 'gpt-5', messageID: 'msg_init' });
      expect(res.status).toBe(200);
      expect(res.text).toBe('true');
      expect(calls).toEqual([['command', '/work/project', 'ses_1', { command: 'init', arguments: '', model: 'openai/gpt-5', messageID: 'msg_init' }]]);
    });

    it.each([
      ['no messageID', { providerID: 'openai', modelID: 'gpt-5' }, ['messageID']],
      ['no providerID', { modelID: 'gpt-5', messageID: 'msg_1' }, ['providerID']],
      ['no modelID', { providerID: 'openai', messageID: 'msg_1' }, ['modelID']],
      ['a messageID without the msg prefix', { providerID: 'openai', modelID: 'gpt-5', messageID: 'ses_1' }, ['messageID']],
    ])('%s: 400 naming the field, nothing run', async (_case, body, field) => {
      const res = await ctx.http().post('/session/ses_1/init').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });
  });

  describe('POST /session/:id/summarize (session.summarize)', () => {
    it('200 `true`; the compaction receives the checked body', async () => {
      const res = await ctx.http().post('/session/ses_1/summarize').send({ providerID: 'openai', modelID: 'gpt-5', auto: true });
      expect(res.status).toBe(200);
      expect(res.text).toBe('true');
      expect(calls).toEqual([['summarize', '/work/project', 'ses_1', { providerID: 'openai', modelID: 'gpt-5', auto: true }]]);
    });

    it.each([
      ['no providerID', { modelID: 'gpt-5' }, ['providerID']],
      ['no modelID', { providerID: 'openai' }, ['modelID']],
      ['an auto that is not a boolean', { providerID: 'openai', modelID: 'gpt-5', auto: 'yes' }, ['auto']],
    ])('%s: 400 naming the field, nothing compacted', async (_case, body, field) => {
      const res = await ctx.http().post('/session/ses_1/summarize').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });

    it('a busy session: 400 BusyError', async () => {
      const res = await ctx.http().post('/session/ses_busy/summarize').send({ providerID: 'openai', modelID: 'gpt-5' });
      expect(res.status).toBe(400);
      expectSessionError(res.body, 'BusyError');
    });
  });
});
