import { Logger } from '@nestjs/common';
import { APICallError } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { z } from 'zod';
import type { AgentInfo } from '../agents/builtin-agents';
import type { KeelSettings } from '../common/settings';
import type { EventBus } from '../events/event-bus.service';
import type { AssistantMessage, Part } from '../messages/message.entity';
import type { MessageService } from '../messages/message.service';
import type { PermissionService } from '../permissions/permission.service';
import type { Instance } from '../projects/instance.service';
import type { ResolvedModel } from '../providers/provider.service';
import type { SessionService } from '../sessions/session.service';
import type { SessionStatusService } from '../sessions/session-status.service';
import type { SnapshotService } from '../snapshots/snapshot.service';
import type { ToolDefinition, ToolResult } from '../tools/tool';
import { StreamProcessor } from './stream-processor';

/**
 * The processor driven through `process()` by the real `streamText` over a scripted model stream
 * (`ai/test`'s MockLanguageModelV3); its services are the small recorders below, so each test reads
 * what the step wrote (parts, with the delta of each streamed chunk), published and saved.
 */

type ModelChunk =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer C> ? C : never;
type Usage = Extract<ModelChunk, { type: 'finish' }>['usage'];

const DIRECTORY = '/work/project';
const PRICES: ResolvedModel['model']['cost'] = { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } };

/** MessageService as the processor uses it: every write is recorded with a copy of the part as sent. */
class RecordingMessages {
  readonly writes: { part: Part; delta?: string; directory?: string }[] = [];
  readonly savedMessages: AssistantMessage[] = [];
  /** When it returns a promise, that write resolves only after it (a slow store or socket). */
  hold?: (part: Part, delta?: string) => Promise<void> | undefined;
  onWrite?: (part: Part, delta?: string) => void;
  private next = 0;

  newPartID(): string {
    return `prt_${String(++this.next).padStart(3, '0')}`;
  }

  updatePart(part: Part, options: { directory?: string; delta?: string } = {}): Promise<Part> {
    this.writes.push({ part: structuredClone(part), ...options });
    this.onWrite?.(part, options.delta);
    return (this.hold?.(part, options.delta) ?? Promise.resolve()).then(() => part);
  }

  updateMessage(info: AssistantMessage): Promise<AssistantMessage> {
    this.savedMessages.push(structuredClone(info));
    return Promise.resolve(info);
  }

  /** Every state a part went through, in write order. */
  history(id: string): Part[] {
    return this.writes.filter((w) => w.part.id === id).map((w) => w.part);
  }

  ofType(type: string): Part[] {
    return [
      ...new Map(this.writes.filter((w) => w.part.type === type).map((w) => [w.part.id, w.part])).values(),
    ];
  }
}

class RecordingSessions {
  readonly published: { sessionID: string; type: string; properties: unknown; directory?: string }[] = [];
  readonly usage: { id: string; cost: number; tokens: AssistantMessage['tokens'] }[] = [];

  publish(sessionID: string, type: string, properties: unknown, directory?: string): Promise<void> {
    this.published.push({ sessionID, type, properties, directory });
    return Promise.resolve();
  }

  addUsage(id: string, cost: number, tokens: AssistantMessage['tokens']): Promise<void> {
    this.usage.push({ id, cost, tokens: structuredClone(tokens) });
    return Promise.resolve();
  }
}

class RecordingStatus {
  readonly statuses: { type: string }[] = [];

  set(_sessionID: string, status: { type: string }): Promise<void> {
    this.statuses.push(status);
    return Promise.resolve();
  }
}

/** Worktree snapshots: one tree hash per `track`, in order. */
class ScriptedSnapshots {
  tracked = 0;

  track(): Promise<string> {
    return Promise.resolve(`tree_${++this.tracked}`);
  }

  patch(): Promise<{ hash: string; files: string[] }> {
    return Promise.resolve({ hash: 'tree_1', files: [] });
  }
}

const echo: ToolDefinition = {
  id: 'echo',
  description: 'Echoes its text',
  parameters: z.object({ text: z.string() }),
  execute: (args: { text: string }): Promise<ToolResult> =>
    args.text === 'fail'
      ? Promise.reject(new Error('disk full'))
      : Promise.resolve({
          title: `echo ${args.text}`,
          output: args.text.toUpperCase(),
          metadata: { length: args.text.length },
        }),
};

const invalid: ToolDefinition = {
  id: 'invalid',
  description: 'Answers invalid calls',
  parameters: z.object({ tool: z.string(), error: z.string() }),
  execute: () => Promise.resolve({ title: 'Invalid Tool', output: 'invalid', metadata: {} }),
};

function usage(
  input: { total: number; cacheRead?: number; cacheWrite?: number },
  output: { total: number; reasoning?: number },
): Usage {
  const cacheRead = input.cacheRead ?? 0;
  const cacheWrite = input.cacheWrite ?? 0;
  const reasoning = output.reasoning ?? 0;
  return {
    inputTokens: { total: input.total, noCache: input.total - cacheRead - cacheWrite, cacheRead, cacheWrite },
    outputTokens: { total: output.total, text: output.total - reasoning, reasoning },
  };
}

function finish(
  reason: 'stop' | 'tool-calls' = 'stop',
  used: Usage = usage({ total: 10 }, { total: 5 }),
): ModelChunk {
  return { type: 'finish', finishReason: { unified: reason, raw: reason }, usage: used };
}

function modelOf(chunks: ModelChunk[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: () =>
      Promise.resolve({
        stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }),
      }),
  });
}

function setup(
  languageModel: MockLanguageModelV3,
  options: { cost?: ResolvedModel['model']['cost']; abort?: AbortController } = {},
) {
  const messages = new RecordingMessages();
  const sessions = new RecordingSessions();
  const status = new RecordingStatus();
  const snapshots = new ScriptedSnapshots();
  const published: { type: string; properties: unknown }[] = [];
  const bus = {
    publish: (_directory: string, type: string, properties: unknown) =>
      void published.push({ type, properties }),
  };
  const permissions = { ask: () => Promise.resolve('once' as const) };
  const settings = { assistant: { maxRetries: 0, maxSteps: 10 } } as KeelSettings;
  const processor = new StreamProcessor(
    messages as unknown as MessageService,
    sessions as unknown as SessionService,
    status as unknown as SessionStatusService,
    permissions as unknown as PermissionService,
    bus as unknown as EventBus,
    snapshots as unknown as SnapshotService,
    settings,
  );
  const assistant: AssistantMessage = {
    id: 'msg_2',
    sessionID: 'ses_1',
    role: 'assistant',
    time: { created: 1 },
    parentID: 'msg_1',
    modelID: 'model-1',
    providerID: 'scripted',
    mode: 'build',
    agent: 'build',
    path: { cwd: DIRECTORY, root: DIRECTORY },
    cost: 0.5,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  };
  const agent = {
    name: 'build',
    mode: 'primary',
    permission: { edit: 'allow', bash: { '*': 'allow' }, webfetch: 'allow' },
    tools: {},
    options: {},
  } as unknown as AgentInfo;
  const model = {
    providerID: 'scripted',
    modelID: 'model-1',
    model: { cost: options.cost ?? PRICES },
  } as ResolvedModel;
  const abort = options.abort ?? new AbortController();
  const run = () =>
    processor.process({
      instance: { directory: DIRECTORY, worktree: DIRECTORY } as Instance,
      directory: DIRECTORY,
      worktree: DIRECTORY,
      assistant,
      agent,
      model,
      languageModel,
      system: ['You are a test.'],
      messages: [{ role: 'user', content: 'hi' }],
      tools: [echo],
      invalid,
      abort: abort.signal,
    });
  return { run, messages, sessions, status, snapshots, assistant };
}

describe('StreamProcessor', () => {
  // The failed-step warning is expected in the error test; the message's error is what it asserts.
  beforeAll(() => Logger.overrideLogger(false));

  it('streams text into one part: a delta per chunk in order, trimmed at the end, with start and end times', async () => {
    const { run, messages, assistant } = setup(
      modelOf([
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Hello' },
        { type: 'text-delta', id: 't1', delta: ', ' },
        { type: 'text-delta', id: 't1', delta: 'world' },
        { type: 'text-delta', id: 't1', delta: '.\n\n  ' },
        { type: 'text-end', id: 't1' },
        finish(),
      ]),
    );

    await expect(run()).resolves.toBe('continue');

    const texts = messages.ofType('text');
    expect(texts).toHaveLength(1);
    const history = messages.history(texts[0].id);
    const deltas = messages.writes.filter((w) => w.part.type === 'text' && w.delta !== undefined);
    expect(deltas.map((w) => w.delta)).toEqual(['Hello', ', ', 'world', '.\n\n  ']);
    // Each delta goes out with the text so far, before the part has ended.
    expect(deltas.map((w) => w.part.text)).toEqual([
      'Hello',
      'Hello, ',
      'Hello, world',
      'Hello, world.\n\n  ',
    ]);
    expect(
      deltas.every((w) => (w.part.time as { end?: number }).end === undefined && w.directory === DIRECTORY),
    ).toBe(true);
    expect(history[0]).toMatchObject({ type: 'text', text: '', sessionID: 'ses_1', messageID: 'msg_2' });
    const last = history.at(-1)!;
    const time = last.time as { start: number; end?: number };
    expect(last.text).toBe('Hello, world.');
    expect(typeof time.start).toBe('number');
    expect(time.end).toBeGreaterThanOrEqual(time.start);
    expect(assistant.error).toBeUndefined();
  });

  it('streams reasoning into its own part, apart from text with the same id, and keeps its trailing whitespace', async () => {
    const { run, messages } = setup(
      modelOf([
        { type: 'reasoning-start', id: '0' },
        { type: 'reasoning-delta', id: '0', delta: 'Think' },
        { type: 'text-start', id: '0' },
        { type: 'reasoning-delta', id: '0', delta: 'ing \n' },
        { type: 'text-delta', id: '0', delta: 'Answer ' },
        { type: 'reasoning-end', id: '0' },
        { type: 'text-end', id: '0' },
        finish(),
      ]),
    );

    await run();

    const [reasoning] = messages.ofType('reasoning');
    const [text] = messages.ofType('text');
    expect(reasoning.id).not.toBe(text.id);
    const reasoningWrites = messages.history(reasoning.id);
    expect(
      messages.writes.filter((w) => w.part.id === reasoning.id && w.delta !== undefined).map((w) => w.delta),
    ).toEqual(['Think', 'ing \n']);
    expect(reasoningWrites.at(-1)).toMatchObject({ type: 'reasoning', text: 'Thinking \n' });
    expect((reasoningWrites.at(-1)!.time as { end?: number }).end).toEqual(expect.any(Number));
    expect(messages.history(text.id).at(-1)).toMatchObject({ type: 'text', text: 'Answer' });
    // Each part ends when its own end event arrives (reasoning first here), not when the step is over.
    const endedAt = (id: string) =>
      messages.writes.findIndex(
        (w) => w.part.id === id && (w.part.time as { end?: number }).end !== undefined,
      );
    const stepFinishAt = messages.writes.findIndex((w) => w.part.type === 'step-finish');
    expect(endedAt(reasoning.id)).toBeGreaterThan(-1);
    expect(endedAt(reasoning.id)).toBeLessThan(endedAt(text.id));
    expect(endedAt(text.id)).toBeLessThan(stepFinishAt);
  });

  it('moves a tool part from pending to running with its input to completed with the tool’s output, title and metadata', async () => {
    const { run, messages } = setup(
      modelOf([
        { type: 'tool-input-start', id: 'call_1', toolName: 'echo' },
        { type: 'tool-input-delta', id: 'call_1', delta: '{"text":"hi"}' },
        { type: 'tool-input-end', id: 'call_1' },
        { type: 'tool-call', toolCallId: 'call_1', toolName: 'echo', input: '{"text":"hi"}' },
        finish('tool-calls'),
      ]),
    );

    await expect(run()).resolves.toBe('continue');

    const [tool] = messages.ofType('tool');
    const states = messages.history(tool.id).map((p) => p.state as Record<string, unknown>);
    expect(states.map((s) => s.status)).toEqual(['pending', 'running', 'completed']);
    expect(messages.history(tool.id)[0]).toMatchObject({
      type: 'tool',
      callID: 'call_1',
      tool: 'echo',
      state: { status: 'pending', input: {}, raw: '' },
    });
    expect(states[1]).toMatchObject({
      status: 'running',
      input: { text: 'hi' },
      time: { start: expect.any(Number) },
    });
    expect(states[2]).toMatchObject({
      status: 'completed',
      input: { text: 'hi' },
      output: 'HI',
      title: 'echo hi',
      metadata: { length: 2 },
    });
    const time = states[2].time as { start: number; end: number };
    expect(time.start).toBe((states[1].time as { start: number }).start);
    expect(time.end).toBeGreaterThanOrEqual(time.start);
  });

  it('ends a tool part whose tool throws with status error and the error’s message', async () => {
    const { run, messages } = setup(
      modelOf([
        { type: 'tool-input-start', id: 'call_1', toolName: 'echo' },
        { type: 'tool-call', toolCallId: 'call_1', toolName: 'echo', input: '{"text":"fail"}' },
        finish('tool-calls'),
      ]),
    );

    await expect(run()).resolves.toBe('continue');

    const [tool] = messages.ofType('tool');
    const states = messages.history(tool.id).map((p) => p.state as Record<string, unknown>);
    expect(states.map((s) => s.status)).toEqual(['pending', 'running', 'error']);
    expect(states[2]).toMatchObject({
      status: 'error',
      input: { text: 'fail' },
      error: 'disk full',
      time: { start: expect.any(Number), end: expect.any(Number) },
    });
    expect(states[2]).not.toHaveProperty('output');
  });

  it('writes step-start and a step-finish with the tokens and cost of the usage, and saves them on the message and the session', async () => {
    const { run, messages, sessions, status, assistant } = setup(
      modelOf([
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'ok' },
        { type: 'text-end', id: 't1' },
        finish(
          'stop',
          usage({ total: 1000, cacheRead: 200, cacheWrite: 100 }, { total: 300, reasoning: 50 }),
        ),
      ]),
    );

    await run();

    // Input excludes cache reads and writes; reasoning is part of output (and priced as output).
    const tokens = { total: 1300, input: 700, output: 300, reasoning: 50, cache: { read: 200, write: 100 } };
    const cost = (700 * 3 + 300 * 15 + 200 * 0.3 + 100 * 3.75) / 1_000_000;
    expect(status.statuses).toContainEqual({ type: 'busy' });
    const types = messages.writes.map((w) => w.part.type);
    expect(types[0]).toBe('step-start');
    expect(messages.ofType('step-start')[0]).toMatchObject({ snapshot: 'tree_1' });
    const [stepFinish] = messages.ofType('step-finish');
    expect(stepFinish).toMatchObject({ reason: 'stop', tokens, snapshot: 'tree_2' });
    expect(stepFinish.cost).toBeCloseTo(cost, 12);
    expect(types.indexOf('step-finish')).toBeGreaterThan(types.lastIndexOf('text'));
    expect(assistant).toMatchObject({ finish: 'stop', tokens });
    expect(assistant.cost).toBeCloseTo(0.5 + cost, 12);
    // Saved at the step's finish (before the message completes), then added to the session's total.
    expect(messages.savedMessages[0]).toMatchObject({ finish: 'stop', tokens, time: { created: 1 } });
    expect(messages.savedMessages[0].time.completed).toBeUndefined();
    expect(sessions.usage).toEqual([{ id: 'ses_1', cost: expect.closeTo(cost, 12), tokens }]);
  });

  it('prices a step whose input and cache reads pass 200k tokens at the model’s over-200k prices', async () => {
    const over = { input: 6, output: 22.5, cache: { read: 0.6, write: 7.5 } };
    const { run, messages } = setup(
      modelOf([finish('stop', usage({ total: 250_000, cacheRead: 10_000 }, { total: 1000 }))]),
      {
        cost: { ...PRICES, experimentalOver200K: over },
      },
    );

    await run();

    expect(messages.ofType('step-finish')[0].cost).toBeCloseTo(
      (240_000 * 6 + 1000 * 22.5 + 10_000 * 0.6) / 1_000_000,
      12,
    );
  });

  it('records a stream error as the message’s API error, publishes session.error and closes the open text part', async () => {
    const error = new APICallError({
      message: 'Bad Request: context too long',
      url: 'http://model.test/v1/chat',
      requestBodyValues: {},
      statusCode: 400,
      responseBody: '{"error":"context too long"}',
      isRetryable: false,
    });
    const { run, messages, sessions, assistant } = setup(
      modelOf([
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Half' },
        { type: 'error', error },
        { type: 'text-delta', id: 't1', delta: ' and more' },
        finish(),
      ]),
    );

    await expect(run()).resolves.toBe('stop');

    const named = {
      name: 'APIError',
      data: {
        message: 'Bad Request: context too long',
        statusCode: 400,
        isRetryable: false,
        responseBody: '{"error":"context too long"}',
      },
    };
    expect(assistant.error).toEqual(named);
    expect(sessions.published).toEqual([
      {
        sessionID: 'ses_1',
        type: 'session.error',
        properties: { sessionID: 'ses_1', error: named },
        directory: DIRECTORY,
      },
    ]);
    // Nothing after the error is handled: no further text, no step-finish.
    const [text] = messages.ofType('text');
    const last = messages.history(text.id).at(-1)!;
    expect(last.text).toBe('Half');
    expect((last.time as { end?: number }).end).toEqual(expect.any(Number));
    expect(messages.ofType('step-finish')).toEqual([]);
    expect(messages.savedMessages.at(-1)).toMatchObject({
      error: named,
      time: { completed: expect.any(Number) },
    });
  });

  it('records an abort as MessageAbortedError and publishes it', async () => {
    const abort = new AbortController();
    const model = new MockLanguageModelV3({
      // A provider's response stream fails with an AbortError when its request is aborted.
      doStream: ({ abortSignal }) =>
        Promise.resolve({
          stream: new ReadableStream<ModelChunk>({
            start(controller) {
              controller.enqueue({ type: 'text-start', id: 't1' });
              controller.enqueue({ type: 'text-delta', id: 't1', delta: 'Half' });
              abortSignal?.addEventListener('abort', () => controller.error(abortSignal.reason), {
                once: true,
              });
            },
          }),
        }),
    });
    const { run, messages, sessions, assistant } = setup(model, { abort });
    messages.onWrite = (_part, delta) => {
      if (delta === 'Half') abort.abort();
    };

    await expect(run()).resolves.toBe('stop');

    // The `abort` handler and execute()'s aborted-signal check both set this error: either one alone passes.
    const aborted = { name: 'MessageAbortedError', data: { message: 'The operation was aborted.' } };
    expect(assistant.error).toEqual(aborted);
    expect(sessions.published).toEqual([
      {
        sessionID: 'ses_1',
        type: 'session.error',
        properties: { sessionID: 'ses_1', error: aborted },
        directory: DIRECTORY,
      },
    ]);
    const [text] = messages.ofType('text');
    expect(messages.history(text.id).at(-1)).toMatchObject({
      text: 'Half',
      time: { end: expect.any(Number) },
    });
  });

  it('waits for a text delta’s write before it handles the next event', async () => {
    const { run, messages, snapshots, assistant } = setup(
      modelOf([
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'slow' },
        { type: 'text-end', id: 't1' },
        finish(),
      ]),
    );
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let deltaWritten!: () => void;
    const deltaWrite = new Promise<void>((resolve) => (deltaWritten = resolve));
    messages.hold = (_part, delta) => {
      if (delta === undefined) return undefined;
      deltaWritten();
      return released;
    };

    const done = run();
    // (A run that ends without writing the delta fails the assertions below at once.)
    await Promise.race([deltaWrite, done]);
    // Ample time for the rest of the scripted stream (in-process, no delays) to be handled if nothing waited.
    await new Promise((resolve) => setTimeout(resolve, 20));
    // finish-step (which sets `finish` and takes the closing snapshot) has not been handled yet.
    expect(assistant.finish).toBeUndefined();
    expect(snapshots.tracked).toBe(1);

    release();
    await expect(done).resolves.toBe('continue');
    expect(assistant.finish).toBe('stop');
    expect(snapshots.tracked).toBe(2);
  });
});
