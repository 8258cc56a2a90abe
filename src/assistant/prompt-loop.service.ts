/**
 * PromptLoop — the assistant turn of a session (reference `SessionPrompt`).
 *
 *   prompt(instance, sessionID, input) → {info, parts}   stores the user message, runs (or joins) the loop,
 *                                                        resolves with the last assistant message
 *   loop(instance, sessionID) → {info, parts}            one model step per iteration until the model stops
 *   claim(instance, sessionID) → AbortSignal             marks a session busy for a run outside the loop (shell);
 *                                                        BusyError when something runs; release(sessionID) ends it
 *   abort(sessionID)                                     stops the stream and running tools, on whichever replica runs
 *                                                        them (a relayed signal); always succeeds
 *   isBusy(sessionID)
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AgentService } from '../agents/agent.service';
import type { AgentInfo } from '../agents/builtin-agents';
import { AllowedDirectories } from '../common/allowed-directories';
import { BusyError } from '../common/errors';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { ConfigService } from '../config/config.service';
import { EventBus } from '../events/event-bus.service';
import type { MessageWithParts, Part, UserMessage } from '../messages/message.entity';
import { MessageService } from '../messages/message.service';
import type { Instance } from '../projects/instance.service';
import { InstanceService } from '../projects/instance.service';
import { ProviderService } from '../providers/provider.service';
import type { ModelRef } from '../providers/provider.service';
import type { Session } from '../sessions/session.entity';
import { SessionService } from '../sessions/session.service';
import { SessionStatusService } from '../sessions/session-status.service';
import { RevertService } from '../snapshots/revert.service';
import type { SubtaskRequest, ToolContext } from '../tools/tool';
import { ToolRegistry } from '../tools/tool-registry.service';
import { filterCompacted, SessionCompaction } from './compaction.service';
import { toModelMessages } from './model-messages';
import { SessionSummary } from './session-summary.service';
import { newAssistantMessage, resolveStepModel } from './step-model';
import { StreamProcessor } from './stream-processor';
import { DEFAULT_PROMPT, environmentPrompt, instructionPrompts } from './system-prompt';
import { TitleGenerator } from './title-generator';
import { checkAttachments, expandUserParts, PartInput } from './user-parts';

export interface PromptInput {
  messageID?: string;
  model?: ModelRef;
  agent?: string;
  noReply?: boolean;
  tools?: Record<string, boolean>;
  system?: string;
  variant?: string;
  parts: PartInput[];
}

interface SessionRun {
  abort: AbortController;
  directory: string;
  waiters: { resolve: (r: MessageWithParts) => void; reject: (e: unknown) => void }[];
  /** A prompt joined after the loop last read the history: look again before stopping. */
  joined: boolean;
}

/** Relayed to every replica: the one running the session's turn stops it. */
const ABORT_SIGNAL = 'session.abort';
const SUBTASK_FOLLOW_UP = 'Summarize the task tool output above and continue with your task.';

/** The latest message of `role` in `history`. */
export function findLast(history: MessageWithParts[], role: 'user' | 'assistant'): MessageWithParts | undefined {
  return history.findLast((message) => message.info.role === role);
}

@Injectable()
export class PromptLoop {
  private readonly logger = new Logger('PromptLoop');
  private readonly runs = new Map<string, SessionRun>();

  constructor(
    private readonly sessions: SessionService,
    private readonly status: SessionStatusService,
    private readonly messages: MessageService,
    private readonly agents: AgentService,
    private readonly providers: ProviderService,
    private readonly config: ConfigService,
    private readonly registry: ToolRegistry,
    private readonly processor: StreamProcessor,
    private readonly titles: TitleGenerator,
    private readonly reverts: RevertService,
    private readonly compaction: SessionCompaction,
    private readonly summary: SessionSummary,
    instances: InstanceService,
    private readonly bus: EventBus,
    private readonly allowed: AllowedDirectories,
    @Inject(KEEL_SETTINGS) private readonly keel: KeelSettings,
  ) {
    instances.onDispose((directory) => {
      for (const [sessionID, run] of this.runs) if (run.directory === directory) this.abortLocal(sessionID);
    });
    bus.signals<{ sessionID: string }>(ABORT_SIGNAL).subscribe(({ sessionID }) => this.abortLocal(sessionID));
  }

  /**
   * What a prompt is refused for before its reply starts streaming (the 200 goes out first): an
   * unknown session, an attachment outside the allowed directories.
   */
  async admit(sessionID: string, input: PromptInput): Promise<void> {
    await this.sessions.get(sessionID);
    await checkAttachments(input.parts, this.allowed);
  }

  isBusy(sessionID: string): boolean {
    return this.runs.has(sessionID);
  }

  /** The turn may run on another replica sharing the database: the signal reaches it (and this one, synchronously). */
  abort(sessionID: string): void {
    this.bus.signal(ABORT_SIGNAL, { sessionID });
  }

  private abortLocal(sessionID: string): void {
    this.runs.get(sessionID)?.abort.abort(new Error('The operation was aborted.'));
  }

  claim(instance: Instance, sessionID: string): AbortSignal {
    if (this.runs.has(sessionID)) throw new BusyError(`Session ${sessionID} is busy`, { sessionID });
    const run: SessionRun = { abort: new AbortController(), directory: instance.directory, waiters: [], joined: false };
    this.runs.set(sessionID, run);
    return run.abort.signal;
  }

  async release(sessionID: string, directory: string): Promise<void> {
    this.runs.delete(sessionID);
    await this.status.set(sessionID, { type: 'idle' }, directory);
  }

  async prompt(instance: Instance, sessionID: string, input: PromptInput): Promise<MessageWithParts> {
    await this.sessions.get(sessionID);
    // A pending revert hides messages: they go before anything new is added (reference behaviour).
    await this.reverts.cleanup(sessionID);
    const session = await this.sessions.get(sessionID);
    const user = await this.createUserMessage(instance, session, input);
    await this.sessions.touch(sessionID);
    if (input.noReply) return user;
    return this.loop(instance, sessionID);
  }

  /** The model of a new user message: input, agent, the session's last one, the configured default. */
  private async chooseModel(instance: Instance, sessionID: string, agent: AgentInfo | undefined, input: PromptInput): Promise<ModelRef> {
    if (input.model) return input.model;
    if (agent?.model) return agent.model;
    const history = await this.messages.list(sessionID, { limit: 20 });
    const last = findLast(history, 'user');
    if (last && last.info.role === 'user' && last.info.model.providerID) return last.info.model;
    // No model at all: the message is still stored, and the loop explains what to configure.
    return this.providers.defaultModel(instance).catch(() => ({ providerID: '', modelID: '' }));
  }

  async createUserMessage(instance: Instance, session: Session, input: PromptInput): Promise<MessageWithParts> {
    const agent = input.agent ? await this.agents.get(instance, input.agent) : await this.agents.defaultAgent(instance);
    const info: UserMessage = {
      id: input.messageID ?? this.messages.newMessageID(),
      sessionID: session.id,
      role: 'user',
      time: { created: Date.now() },
      agent: agent?.name ?? input.agent ?? 'build',
      model: await this.chooseModel(instance, session.id, agent, input),
      ...(input.system ? { system: input.system } : {}),
      ...(input.tools ? { tools: input.tools } : {}),
      ...(input.variant ? { variant: input.variant } : {}),
    };
    const parts = await expandUserParts(input.parts, { sessionID: session.id, messageID: info.id, directory: instance.directory, newPartID: () => this.messages.newPartID(), allowed: this.allowed });
    await this.messages.updateMessage(info, { directory: instance.directory });
    for (const part of parts) await this.messages.updatePart(part, { directory: instance.directory });
    await this.rememberChoice(session, info);
    return { info, parts };
  }

  /** As opencode 1.18: the session keeps the agent and model it was last prompted with (`variant` "default" when none was chosen). */
  private async rememberChoice(session: Session, user: UserMessage): Promise<void> {
    if (!user.model.providerID) return;
    const model = { id: user.model.modelID, providerID: user.model.providerID, variant: user.variant ?? 'default' };
    const same = session.agent === user.agent && session.model?.id === model.id && session.model.providerID === model.providerID && session.model.variant === model.variant;
    if (!same) await this.sessions.update(session.id, { agent: user.agent, model });
  }

  /** Runs the loop, or joins the one already running on this session. */
  async loop(instance: Instance, sessionID: string): Promise<MessageWithParts> {
    const existing = this.runs.get(sessionID);
    if (existing) {
      existing.joined = true;
      return new Promise((resolve, reject) => existing.waiters.push({ resolve, reject }));
    }
    const run: SessionRun = { abort: new AbortController(), directory: instance.directory, waiters: [], joined: false };
    this.runs.set(sessionID, run);
    let result: MessageWithParts | undefined;
    let failure: unknown;
    try {
      result = await this.iterate(instance, sessionID, run);
      await this.compaction.prune(instance, sessionID);
    } catch (error) {
      failure = error;
      this.logger.error({ msg: 'prompt loop failed', sessionID, error: String(error), stack: (error as Error)?.stack });
    } finally {
      this.runs.delete(sessionID);
      await this.status.set(sessionID, { type: 'idle' }, instance.directory).catch(() => undefined);
    }
    for (const waiter of run.waiters) {
      if (result) waiter.resolve(result);
      else waiter.reject(failure);
    }
    if (!result) throw failure;
    return result;
  }

  private async iterate(instance: Instance, sessionID: string, run: SessionRun): Promise<MessageWithParts> {
    const signal = run.abort.signal;
    let step = 0;
    let last: MessageWithParts | undefined;
    for (;;) {
      run.joined = false;
      await this.status.set(sessionID, { type: 'busy' }, instance.directory);
      const history = filterCompacted(await this.messages.list(sessionID));
      const lastUser = findLast(history, 'user');
      const lastAssistant = findLast(history, 'assistant');
      if (!lastUser || lastUser.info.role !== 'user') throw new Error(`Session ${sessionID} has no user message`);
      const answered =
        lastAssistant?.info.role === 'assistant' &&
        lastAssistant.info.id > lastUser.info.id &&
        (lastAssistant.info.error !== undefined || (lastAssistant.info.finish !== undefined && !['tool-calls', 'unknown'].includes(lastAssistant.info.finish)));
      if (answered || signal.aborted || step >= this.keel.assistant.maxSteps) {
        if (run.joined && !signal.aborted && step < this.keel.assistant.maxSteps) continue;
        last = lastAssistant ?? last;
        break;
      }
      step++;
      const session = await this.sessions.get(sessionID);
      const user = lastUser as MessageWithParts & { info: UserMessage };
      const pending = lastAssistant && lastAssistant.info.id > lastUser.info.id ? [] : lastUser.parts;
      const subtask = pending.find((p) => p.type === 'subtask');
      const compaction = pending.find((p) => p.type === 'compaction');
      let outcome: 'continue' | 'stop';
      if (subtask) outcome = await this.runSubtask(instance, session, lastUser, subtask, signal);
      else if (compaction) outcome = await this.compaction.process(instance, history, user.info, compaction.auto === true, signal);
      else if (await this.compaction.overflowed(instance, history, user.info)) {
        await this.compaction.create(instance, sessionID, { agent: user.info.agent, model: user.info.model, auto: true });
        continue;
      } else outcome = await this.step(instance, session, history, user, step, signal);
      // The session diff follows every model step (the reference refreshes it at each finish-step).
      if (!subtask) await this.summary.summarize(instance, sessionID, user.info.id);
      if (outcome === 'stop') {
        last = undefined;
        const after = await this.messages.list(sessionID, { limit: 5 });
        last = findLast(after, 'assistant');
        break;
      }
    }
    if (!last) return findLast(await this.messages.list(sessionID, { limit: 5 }), 'assistant') ?? (await this.messages.list(sessionID, { limit: 1 }))[0];
    return this.messages.get(sessionID, last.info.id);
  }

  private async step(
    instance: Instance,
    session: Session,
    history: MessageWithParts[],
    lastUser: MessageWithParts & { info: UserMessage },
    step: number,
    signal: AbortSignal,
  ): Promise<'continue' | 'stop'> {
    const agent = (await this.agents.get(instance, lastUser.info.agent)) ?? (await this.agents.defaultAgent(instance));
    const assistant = newAssistantMessage(this.messages.newMessageID(), instance, lastUser.info, agent.name, lastUser.info.model);
    const services = { messages: this.messages, sessions: this.sessions, providers: this.providers };
    const resolved = await resolveStepModel(services, instance, assistant, () =>
      lastUser.info.model.providerID ? lastUser.info.model : this.providers.defaultModel(instance),
    );
    if (resolved === 'stop') return resolved;
    await this.messages.updateMessage(assistant, { directory: instance.directory });
    if (step === 1) void this.titles.generate(instance, session, lastUser, lastUser.info.model, signal);
    const config = await this.config.get(instance);
    const denied: Record<string, boolean> = {
      ...(agent.permission.edit === 'deny' ? { edit: false, write: false } : {}),
      ...(agent.permission.webfetch === 'deny' ? { webfetch: false } : {}),
    };
    const tools = this.registry.enabled(config.tools, agent.tools, denied, lastUser.info.tools);
    const system = [
      agent.prompt ?? DEFAULT_PROMPT,
      environmentPrompt(instance),
      ...(await instructionPrompts(instance, config.instructions)),
      ...(lastUser.info.system ? [lastUser.info.system] : []),
    ];
    return this.processor.process({
      instance,
      directory: instance.directory,
      worktree: instance.worktree,
      assistant,
      agent,
      ...resolved,
      system,
      messages: toModelMessages(history),
      tools,
      invalid: this.registry.get('invalid')!,
      abort: signal,
      subtask: (request, ctx) => this.subtask(instance, session, request, ctx),
    });
  }

  /** The `task` tool: a child session running `request.agent` on `request.prompt`. */
  private async subtask(instance: Instance, parent: Session, request: SubtaskRequest, ctx: ToolContext): Promise<{ sessionID: string; output: string }> {
    const child = await this.sessions.create(instance, { parentID: parent.id, title: `${request.description} (@${request.agent} subagent)` });
    ctx.metadata({ title: request.description, metadata: { sessionId: child.id } });
    const onAbort = () => this.abortLocal(child.id);
    ctx.abort.addEventListener('abort', onAbort, { once: true });
    try {
      const parentUser = findLast(await this.messages.list(parent.id, { limit: 20 }), 'user');
      const model = parentUser?.info.role === 'user' && parentUser.info.model.providerID ? parentUser.info.model : undefined;
      const result = await this.prompt(instance, child.id, {
        agent: request.agent,
        ...(model ? { model } : {}),
        tools: { task: false, todowrite: false, todoread: false },
        parts: [{ type: 'text', text: request.prompt }],
      });
      const error = result.info.role === 'assistant' ? result.info.error : undefined;
      if (error) throw new Error(`Subagent failed: ${typeof error.data.message === 'string' ? error.data.message : error.name}`);
      const text = result.parts.filter((p: Part) => p.type === 'text').map((p) => String(p.text)).join('\n');
      return { sessionID: child.id, output: text };
    } finally {
      ctx.abort.removeEventListener('abort', onAbort);
    }
  }

  /** A `subtask` input part (a command with `subtask: true`, an agent mention): run the task tool directly. */
  private async runSubtask(instance: Instance, session: Session, lastUser: MessageWithParts, part: Part, signal: AbortSignal): Promise<'continue' | 'stop'> {
    const user = lastUser.info as UserMessage;
    const assistant = newAssistantMessage(this.messages.newMessageID(), instance, user, user.agent, user.model);
    await this.messages.updateMessage(assistant, { directory: instance.directory });
    const input = { description: String(part.description), prompt: String(part.prompt), subagent_type: String(part.agent) };
    const start = Date.now();
    const toolPart: Part = { id: this.messages.newPartID(), sessionID: session.id, messageID: assistant.id, type: 'tool', callID: this.messages.newPartID(), tool: 'task', state: { status: 'running', input, time: { start } } };
    await this.messages.updatePart(toolPart, { directory: instance.directory });
    const ctx: ToolContext = {
      sessionID: session.id, messageID: assistant.id, callID: String(toolPart.callID), agent: user.agent, directory: instance.directory, worktree: instance.worktree, abort: signal,
      metadata: () => undefined, permit: () => Promise.resolve(), publish: () => undefined,
    };
    try {
      const result = await this.registry.get('task')!.execute(input, { ...ctx, subtask: (request) => this.subtask(instance, session, request, ctx) });
      toolPart.state = { status: 'completed', input, output: result.output, title: result.title, metadata: result.metadata, time: { start, end: Date.now() } };
    } catch (error) {
      toolPart.state = { status: 'error', input, error: signal.aborted ? 'Tool execution aborted' : (error as Error).message, time: { start, end: Date.now() } };
    }
    await this.messages.updatePart(toolPart, { directory: instance.directory });
    assistant.finish = 'tool-calls';
    assistant.time.completed = Date.now();
    if (signal.aborted) assistant.error = { name: 'MessageAbortedError', data: { message: 'The operation was aborted.' } };
    await this.messages.updateMessage(assistant, { directory: instance.directory });
    if (signal.aborted) return 'stop';
    await this.createUserMessage(instance, session, { agent: user.agent, model: user.model, parts: [{ type: 'text', text: SUBTASK_FOLLOW_UP, synthetic: true }] });
    return 'continue';
  }
}
