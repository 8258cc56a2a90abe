import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import type { LanguageModel, LanguageModelUsage, ModelMessage, TextStreamPart, ToolSet } from 'ai';
import type { AgentInfo } from '../agents/builtin-agents';
import { EventBus } from '../events/event-bus.service';
import type { AssistantMessage, Part } from '../messages/message.entity';
import { MessageService } from '../messages/message.service';
import { PermissionService } from '../permissions/permission.service';
import { aiSdk } from '../providers/ai-sdk';
import type { ResolvedModel } from '../providers/provider.service';
import type { Instance } from '../projects/instance.service';
import { SessionService } from '../sessions/session.service';
import { SnapshotService } from '../snapshots/snapshot.service';
import { SessionStatusService } from '../sessions/session-status.service';
import { deniedMessage, resolvePermission } from '../tools/permission-policy';
import type { PermitRequest, SubtaskRequest, ToolContext, ToolDefinition, ToolResult } from '../tools/tool';
import { PermissionDeniedError, REJECTED_MESSAGE } from '../tools/tool';
import { abortedError, toNamedError } from './named-error';
import { retryDelay, retryReason } from './retry';

/** One event of the model's stream (`streamText`'s `fullStream`). */
type StreamEvent = TextStreamPart<ToolSet>;
/** Everything one model step needs; built by the prompt loop for each iteration. */
interface StepInput {
  instance: Instance;
  directory: string;
  worktree: string;
  assistant: AssistantMessage;
  agent: AgentInfo;
  model: ResolvedModel;
  languageModel: LanguageModel;
  system: string[];
  messages: ModelMessage[];
  tools: ToolDefinition[];
  invalid: ToolDefinition;
  abort: AbortSignal;
  subtask?: (request: SubtaskRequest, ctx: ToolContext) => Promise<{ sessionID: string; output: string }>;
}

type StepOutcome = 'continue' | 'stop';

interface ToolState {
  status: 'pending' | 'running' | 'completed' | 'error';
  input: Record<string, unknown>;
  raw?: string;
  output?: string;
  error?: string;
  title?: string;
  metadata?: Record<string, unknown>;
  time?: { start: number; end?: number };
}

type ToolPart = Part & { callID: string; tool: string; state: ToolState };
type StreamedPart = Part & { text: string; time: { start: number; end?: number } };

const TOOL_ABORTED = 'Tool execution aborted';
const DOOM_LOOP_THRESHOLD = 3;

/** Tokens the reference reports: input without cache reads, cache reads/writes apart, and (opencode 1.18) the total. */
function stepTokens(usage: LanguageModelUsage): AssistantMessage['tokens'] {
  const cacheRead = usage.inputTokenDetails?.cacheReadTokens ?? 0;
  const cacheWrite = usage.inputTokenDetails?.cacheWriteTokens ?? 0;
  return {
    total: usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
    input: Math.max(0, (usage.inputTokens ?? 0) - cacheRead - cacheWrite),
    output: usage.outputTokens ?? 0,
    reasoning: usage.outputTokenDetails?.reasoningTokens ?? 0,
    cache: { read: cacheRead, write: cacheWrite },
  };
}

/** Cost of a step from the model's prices per million tokens (reasoning is priced as output). */
function stepCost(tokens: AssistantMessage['tokens'], cost: ResolvedModel['model']['cost']): number {
  const price = tokens.input + tokens.cache.read > 200_000 && cost.experimentalOver200K ? cost.experimentalOver200K : cost;
  return (
    (tokens.input * price.input + tokens.output * price.output + tokens.cache.read * (price.cache?.read ?? 0) + tokens.cache.write * (price.cache?.write ?? 0)) /
    1_000_000
  );
}

/**
 * Runs one model step (one `streamText` call) for an assistant message and turns every stream
 * event into parts and events as the reference does: step-start, text/reasoning with a delta per
 * chunk, tool parts pending → running → completed|error, step-finish with tokens and cost.
 * Retryable provider errors back off (status `retry`); others end the message with `error`.
 */
@Injectable()
export class StreamProcessor {
  private readonly logger = new Logger('StreamProcessor');

  constructor(
    private readonly messages: MessageService,
    private readonly sessions: SessionService,
    private readonly status: SessionStatusService,
    private readonly permissions: PermissionService,
    private readonly bus: EventBus,
    private readonly snapshots: SnapshotService,
    @Inject(KEEL_SETTINGS) private readonly keel: KeelSettings,
  ) {}

  process(input: StepInput): Promise<StepOutcome> {
    return new StepRun(this.deps, input).execute();
  }

  /** @internal used by StepRun */
  get deps() {
    return {
      messages: this.messages,
      sessions: this.sessions,
      status: this.status,
      permissions: this.permissions,
      bus: this.bus,
      snapshots: this.snapshots,
      settings: this.keel.assistant,
      logger: this.logger,
    };
  }
}

/** The state of one step: its parts, the write queue that keeps their events in order. */
class StepRun {
  private readonly toolParts = new Map<string, ToolPart>();
  /** Title/metadata reported by a tool before its part became `running` in the event stream. */
  private readonly earlyMetadata = new Map<string, { title?: string; metadata?: Record<string, unknown> }>();
  private readonly streamed = new Map<string, StreamedPart>();
  private writes: Promise<unknown> = Promise.resolve();
  private blocked = false;
  /** Worktree tree hash at step start: the `patch` part lists files changed since. */
  private snapshot?: string;
  private readonly invalidCalls = new Set<string>();
  /** Tool calls of this step in the order they started (the doom-loop guard). */
  private readonly calls: { tool: string; input: string }[] = [];

  constructor(
    private readonly deps: StreamProcessor['deps'],
    private readonly input: StepInput,
  ) {}

  private get assistant(): AssistantMessage {
    return this.input.assistant;
  }

  /**
   * Parts are written one after the other so their events keep the stream's order. Each write
   * gets its own copy (nested `state`/`time` included): a streamed update is serialised later
   * (the row at the next flush, the frame when a slow client's socket has room), so it must not
   * see later changes such as `time.end`. Strings are shared, so the copy is O(fields).
   */
  private write(part: Part, delta?: string): Promise<unknown> {
    const snapshot: Part = { ...part };
    for (const key of ['state', 'time'] as const) if (part[key] && typeof part[key] === 'object') snapshot[key] = { ...part[key] };
    const target = { directory: this.input.directory };
    this.writes = this.writes.then(() =>
      this.deps.messages.updatePart(snapshot, delta === undefined ? target : { ...target, delta }).catch((error: unknown) => {
        this.deps.logger.error({ msg: 'part write failed', error: String(error) });
      }),
    );
    return this.writes;
  }

  private newPart<T extends Part>(fields: Omit<T, 'id' | 'sessionID' | 'messageID'>): T {
    return { id: this.deps.messages.newPartID(), sessionID: this.assistant.sessionID, messageID: this.assistant.id, ...fields } as T;
  }

  async execute(): Promise<StepOutcome> {
    const { status } = this.deps;
    let attempt = 0;
    for (;;) {
      try {
        await this.stream();
        break;
      } catch (error) {
        if (this.input.abort.aborted) {
          this.assistant.error = abortedError();
          break;
        }
        const reason = retryReason(error);
        if (reason && attempt < this.deps.settings.maxRetries) {
          attempt++;
          const delay = retryDelay(error, attempt);
          await status.set(this.assistant.sessionID, { type: 'retry', attempt, message: reason, next: Date.now() + delay }, this.input.directory);
          try {
            // Rejects at once when the turn is aborted.
            await sleep(delay, undefined, { signal: this.input.abort });
          } catch {
            this.assistant.error = abortedError();
            break;
          }
          await status.set(this.assistant.sessionID, { type: 'busy' }, this.input.directory);
          continue;
        }
        this.assistant.error = toNamedError(error, this.input.model.providerID);
        this.deps.logger.warn({ msg: 'model step failed', sessionID: this.assistant.sessionID, error: String(error) });
        break;
      }
    }
    if (this.input.abort.aborted && !this.assistant.error) this.assistant.error = abortedError();
    await this.finishOpenParts();
    const { sessionID, error } = this.assistant;
    if (error) await this.deps.sessions.publish(sessionID, 'session.error', { sessionID, error }, this.input.directory);
    this.assistant.time.completed = Date.now();
    await this.writes;
    await this.deps.messages.updateMessage(this.assistant, { directory: this.input.directory });
    return this.blocked || this.assistant.error ? 'stop' : 'continue';
  }

  /** Tools still pending or running when the step ends (abort, error) fail with the reference message. */
  private async finishOpenParts(): Promise<void> {
    const now = Date.now();
    for (const part of this.toolParts.values()) {
      if (part.state.status === 'pending' || part.state.status === 'running')
        this.endTool(part, { status: 'error', input: part.state.input, error: TOOL_ABORTED });
    }
    for (const part of this.streamed.values()) {
      if (part.time.end !== undefined) continue;
      part.time.end = now;
      void this.write(part);
    }
    await this.writes;
  }

  private toolSet(): ToolSet {
    const set: ToolSet = {};
    const { tool: aiTool } = aiSdk();
    for (const def of [...this.input.tools, this.input.invalid]) {
      set[def.id] = aiTool({
        description: def.description,
        inputSchema: def.parameters,
        execute: (args: unknown, options: { toolCallId: string; abortSignal?: AbortSignal }) => this.runTool(def, args, options.toolCallId),
      });
    }
    return set;
  }

  /**
   * What each event of the model's stream does to the reply (events without a handler change nothing).
   * Handlers that return a promise are awaited before the next event: that wait is the backpressure.
   */
  private readonly handlers: { [T in StreamEvent['type']]?: (event: Extract<StreamEvent, { type: T }>) => Promise<void> | void } = {
    'start-step': () => this.startStep(),
    'text-start': (event) => this.startStreamed('text', event.id),
    'reasoning-start': (event) => this.startStreamed('reasoning', event.id),
    'text-delta': (event) => this.appendStreamed('text', event.id, event.text),
    'reasoning-delta': (event) => this.appendStreamed('reasoning', event.id, event.text),
    'text-end': (event) => this.endStreamed('text', event.id),
    'reasoning-end': (event) => this.endStreamed('reasoning', event.id),
    'tool-input-start': (event) => this.toolInputStarted(event.id, event.toolName),
    'tool-call': (event) => this.toolCalled(event),
    'tool-result': (event) => this.toolCompleted(event.toolCallId, event.input, event.output as ToolResult),
    'tool-error': (event) => this.toolFailed(event.toolCallId, event.input, event.error),
    'finish-step': (event) => this.finishStep(event.finishReason, event.usage),
    error: (event) => {
      throw event.error;
    },
    abort: () => {
      this.assistant.error = abortedError();
    },
  };

  private async startStep(): Promise<void> {
    await this.deps.status.set(this.assistant.sessionID, { type: 'busy' }, this.input.directory);
    void this.write(this.newPart({ type: 'step-start', ...(this.snapshot ? { snapshot: this.snapshot } : {}) }));
  }

  private startStreamed(type: StreamedPart['type'], id: string): void {
    const part = this.newPart<StreamedPart>({ type, text: '', time: { start: Date.now() } });
    this.streamed.set(`${type}:${id}`, part);
    void this.write(part);
  }

  private async appendStreamed(type: StreamedPart['type'], id: string, text: string): Promise<void> {
    const part = this.streamed.get(`${type}:${id}`);
    if (!part || text.length === 0) return;
    part.text += text;
    // Waiting here is the backpressure: a fast model cannot queue snapshots faster than events go out.
    await this.write(part, text);
  }

  private endStreamed(type: StreamedPart['type'], id: string): void {
    const part = this.streamed.get(`${type}:${id}`);
    if (!part) return;
    if (part.type === 'text') part.text = part.text.trimEnd();
    part.time.end = Date.now();
    void this.write(part);
  }

  private toolInputStarted(callID: string, tool: string): void {
    const part = this.newPart<ToolPart>({ type: 'tool', callID, tool, state: { status: 'pending', input: {}, raw: '' } });
    this.toolParts.set(callID, part);
    void this.write(part);
  }

  private async toolCalled(event: Extract<StreamEvent, { type: 'tool-call' }>): Promise<void> {
    const part = this.toolParts.get(event.toolCallId) ?? this.newPart<ToolPart>({ type: 'tool', callID: event.toolCallId, tool: event.toolName, state: { status: 'pending', input: {} } });
    this.toolParts.set(event.toolCallId, part);
    part.tool = event.toolName;
    if (event.invalid) {
      await this.answerInvalid(part, event.toolName, event.error, event.input);
      return;
    }
    if (part.state.status === 'pending') {
      const early = this.earlyMetadata.get(event.toolCallId);
      part.state = { status: 'running', input: (event.input ?? {}) as Record<string, unknown>, ...early, time: { start: Date.now() } };
      void this.write(part);
    }
  }

  private toolCompleted(callID: string, input: unknown, output: ToolResult): void {
    const part = this.toolParts.get(callID);
    if (!part) return;
    const { output: text, title, metadata } = output;
    const toolInput = (input ?? part.state.input) as Record<string, unknown>;
    this.endTool(part, { status: 'completed', input: toolInput, output: text, title, metadata });
  }

  private toolFailed(callID: string, input: unknown, error: unknown): void {
    const part = this.toolParts.get(callID);
    if (!part || this.invalidCalls.has(callID)) return;
    if (error instanceof PermissionDeniedError && error.byUser) this.blocked = true;
    const message = this.input.abort.aborted ? TOOL_ABORTED : error instanceof Error ? error.message : String(error);
    this.endTool(part, { status: 'error', input: (input ?? part.state.input) as Record<string, unknown>, error: message });
  }

  /** Ends a tool part (its start kept, ended now; a failed one keeps the metadata it reported) and writes it. */
  private endTool(part: ToolPart, state: Omit<ToolState, 'time'>): void {
    const now = Date.now();
    const kept = state.status === 'error' && part.state.metadata ? { metadata: part.state.metadata } : {};
    part.state = { ...state, ...kept, time: { start: part.state.time?.start ?? now, end: now } };
    void this.write(part);
  }

  /** The step's cost and tokens, its snapshot and patch parts, then the message and the session's running total. */
  private async finishStep(reason: string, usage: LanguageModelUsage): Promise<void> {
    const { input } = this;
    const tokens = stepTokens(usage);
    const cost = stepCost(tokens, input.model.model.cost);
    this.assistant.finish = reason;
    this.assistant.cost += cost;
    this.assistant.tokens = tokens;
    const after = await this.deps.snapshots.track(input.instance);
    void this.write(this.newPart({ type: 'step-finish', reason, ...(after ? { snapshot: after } : {}), cost, tokens }));
    if (this.snapshot) {
      const patch = await this.deps.snapshots.patch(input.instance, this.snapshot);
      if (patch.files.length > 0) void this.write(this.newPart({ type: 'patch', hash: patch.hash, files: patch.files }));
    }
    await this.writes;
    await this.deps.messages.updateMessage(this.assistant, { directory: input.directory });
    await this.deps.sessions.addUsage(this.assistant.sessionID, cost, tokens);
  }

  private async stream(): Promise<void> {
    const { input } = this;
    const tools = this.toolSet();
    // Taken before the request: tools may run ahead of this consumer, so step-start would be too late.
    this.snapshot = await this.deps.snapshots.track(input.instance);
    const result = aiSdk().streamText({
      model: input.languageModel,
      system: input.system.join('\n\n'),
      messages: input.messages,
      tools,
      activeTools: input.tools.map((t) => t.id),
      maxRetries: 0,
      abortSignal: input.abort,
      ...(input.agent.temperature !== undefined ? { temperature: input.agent.temperature } : {}),
      ...(input.agent.topP !== undefined ? { topP: input.agent.topP } : {}),
      experimental_repairToolCall: ({ toolCall, error }) => {
        const lower = toolCall.toolName.toLowerCase();
        // Unknown tools and bad arguments come back as invalid calls, answered by the `invalid` tool below.
        return Promise.resolve(lower !== toolCall.toolName && tools[lower] && error.name === 'AI_NoSuchToolError' ? { ...toolCall, toolName: lower } : null);
      },
      onError: () => undefined,
    });
    for await (const event of result.fullStream) {
      const handle = this.handlers[event.type] as ((event: StreamEvent) => Promise<void> | void) | undefined;
      await handle?.(event);
    }
    await this.writes;
  }

  /** The `invalid` tool's answer to a call of an unknown tool or with arguments that fail its schema. */
  private async answerInvalid(part: ToolPart, toolName: string, error: unknown, input: unknown): Promise<void> {
    this.invalidCalls.add(part.callID);
    const args = { tool: toolName, error: error instanceof Error ? error.message : String(error) };
    const result = await this.input.invalid.execute(args, this.context(part.callID));
    const now = Date.now();
    part.tool = this.input.invalid.id;
    part.state = { status: 'completed', input: args, output: result.output, title: result.title, metadata: { ...result.metadata, input }, time: { start: now, end: now } };
    void this.write(part);
  }

  private context(callID: string): ToolContext {
    const { input } = this;
    return {
      sessionID: this.assistant.sessionID,
      messageID: this.assistant.id,
      callID,
      agent: input.agent.name,
      directory: input.directory,
      worktree: input.worktree,
      abort: input.abort,
      metadata: (update) => this.reportMetadata(callID, update),
      permit: (request) => this.permit(callID, request),
      publish: (type, properties) => this.deps.bus.publish(input.directory, type, properties),
      ...(input.subtask ? { subtask: (request: SubtaskRequest) => input.subtask!(request, this.context(callID)) } : {}),
    };
  }

  private reportMetadata(callID: string, update: { title?: string; metadata?: Record<string, unknown> }): void {
    const part = this.toolParts.get(callID);
    if (!part || part.state.status !== 'running') {
      this.earlyMetadata.set(callID, { ...this.earlyMetadata.get(callID), ...update });
      return;
    }
    part.state = { ...part.state, ...(update.title !== undefined ? { title: update.title } : {}), ...(update.metadata ? { metadata: update.metadata } : {}) };
    void this.write(part);
  }

  private async permit(callID: string, request: PermitRequest): Promise<void> {
    const rules = this.input.agent.permission;
    const action = resolvePermission(rules, request);
    if (action === 'allow') return;
    if (action === 'deny') throw new PermissionDeniedError(deniedMessage(request, rules), false);
    const patterns = request.patterns ?? request.subjects;
    const response = await this.deps.permissions.ask(
      {
        sessionID: this.assistant.sessionID,
        messageID: this.assistant.id,
        type: request.type,
        ...(request.pattern ? { pattern: request.pattern.length === 1 ? request.pattern[0] : request.pattern } : {}),
        ...(patterns ? { patterns } : {}),
        callID,
        title: request.title,
        metadata: request.metadata ?? {},
      },
      { directory: this.input.directory, signal: this.input.abort },
    );
    if (response === 'reject') throw new PermissionDeniedError(REJECTED_MESSAGE, true);
  }

  /**
   * The doom-loop guard (reference): when this call and the two before it are the same tool with
   * identical input, it asks first. Calls are recorded here, in the order the SDK starts them, because
   * tools run ahead of the stream consumer that fills `toolParts`.
   */
  private async guardRepetition(def: ToolDefinition, args: unknown, callID: string): Promise<void> {
    const same = JSON.stringify(args);
    this.calls.push({ tool: def.id, input: same });
    const lastThree = this.calls.slice(-DOOM_LOOP_THRESHOLD);
    if (lastThree.length < DOOM_LOOP_THRESHOLD || !lastThree.every((c) => c.tool === def.id && c.input === same)) return;
    await this.permit(callID, { type: 'doom_loop', pattern: [def.id], title: `${def.id} was called ${DOOM_LOOP_THRESHOLD} times in a row with the same input`, metadata: { tool: def.id, input: args } });
  }

  private async runTool(def: ToolDefinition, args: unknown, callID: string): Promise<ToolResult> {
    await this.guardRepetition(def, args, callID);
    return def.execute(args, this.context(callID));
  }
}
