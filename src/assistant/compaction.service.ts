/**
 * SessionCompaction — summarising a conversation so it can go on in a fresh context (reference
 * `session/compaction.ts`, seed era).
 *
 *   create(instance, sessionID, {agent, model, auto})    appends a user message holding a `compaction` part {auto};
 *                                                        the loop runs it as its next step
 *   process(instance, history, user, auto, signal)       the hidden `compaction` agent (no tools) answers the whole
 *                                                        history plus a request for a continuation prompt; the reply is
 *                                                        an assistant message with `summary: true`, mode/agent
 *                                                        `compaction`. With `auto`, a synthetic "Continue if you have
 *                                                        next steps" user message follows. Publishes session.compacted
 *                                                        unless the reply failed ('stop').
 *   overflowed(instance, history, user) → boolean        the last finished (non-summary) reply used more tokens than
 *                                                        the model's context minus its output reserve; never when config
 *                                                        `compaction.auto` is false or the context limit is unknown
 *   prune(instance, sessionID)                           marks completed tool outputs older than the last two turns and
 *                                                        the newest ~40k tokens `state.time.compacted` (the model then
 *                                                        sees a placeholder), unless config `compaction.prune` is false
 *   filterCompacted(history)                             the history from the last completed compaction on
 */
import { Injectable, Logger } from '@nestjs/common';
import { AgentService } from '../agents/agent.service';
import { ConfigService } from '../config/config.service';
import type { AssistantMessage, MessageWithParts, Part, UserMessage } from '../messages/message.entity';
import { MessageService } from '../messages/message.service';
import type { Instance } from '../projects/instance.service';
import { ProviderService } from '../providers/provider.service';
import type { ModelRef } from '../providers/provider.service';
import { SessionService } from '../sessions/session.service';
import { ToolRegistry } from '../tools/tool-registry.service';
import { toModelMessages } from './model-messages';
import { newAssistantMessage, resolveStepModel } from './step-model';
import { StreamProcessor } from './stream-processor';

/** The reference's request after the history (`SessionCompaction.process`). */
const COMPACTION_REQUEST =
  "Provide a detailed prompt for continuing our conversation above. Focus on information that would be helpful for continuing the conversation, including what we did, what we're doing, which files we're working on, and what we're going to do next considering new session will not have access to our conversation.";
const CONTINUE_TEXT = 'Continue if you have next steps';
/** The reference's cap on the output reserve (`SessionPrompt.OUTPUT_TOKEN_MAX`). */
const OUTPUT_TOKEN_MAX = 32_000;
/** Tool output tokens kept verbatim, newest first; older ones are pruned only when that frees at least PRUNE_MINIMUM. */
const PRUNE_PROTECT = 40_000;
const PRUNE_MINIMUM = 20_000;

type Tokens = AssistantMessage['tokens'];

interface CompletedToolState {
  status: 'completed';
  output?: string;
  time: { start: number; end: number; compacted?: number };
}

/** The reference token estimate: four characters a token. */
export function estimateTokens(text: string): number {
  return Math.max(0, Math.round(text.length / 4));
}

/** The reference overflow rule: input + cache reads + output above context − min(output limit, 32k). */
export function isOverflow(tokens: Tokens, limit: { context: number; output: number }): boolean {
  if (!limit.context) return false;
  const count = tokens.input + tokens.cache.read + tokens.output;
  const reserve = Math.min(limit.output, OUTPUT_TOKEN_MAX) || OUTPUT_TOKEN_MAX;
  return count > limit.context - reserve;
}

/**
 * The history from the user message of the last completed compaction on (the reference's
 * `filterCompacted`): a compaction counts once its summary reply has finished without an error.
 */
export function filterCompacted(history: MessageWithParts[]): MessageWithParts[] {
  const completed = new Set<string>();
  for (let i = history.length - 1; i >= 0; i--) {
    const { info, parts } = history[i];
    if (info.role === 'user' && completed.has(info.id) && parts.some((p) => p.type === 'compaction')) return history.slice(i);
    // A failed summary (an error after its finish-step) does not hide the history it failed to summarise.
    if (info.role === 'assistant' && info.summary && info.finish && !info.error) completed.add(info.parentID);
  }
  return history;
}

@Injectable()
export class SessionCompaction {
  private readonly logger = new Logger('SessionCompaction');

  constructor(
    private readonly messages: MessageService,
    private readonly sessions: SessionService,
    private readonly agents: AgentService,
    private readonly providers: ProviderService,
    private readonly config: ConfigService,
    private readonly registry: ToolRegistry,
    private readonly processor: StreamProcessor,
  ) {}

  async create(instance: Instance, sessionID: string, input: { agent: string; model: ModelRef; auto: boolean }): Promise<void> {
    const where = { directory: instance.directory };
    const info: UserMessage = { id: this.messages.newMessageID(), sessionID, role: 'user', time: { created: Date.now() }, agent: input.agent, model: input.model };
    await this.messages.updateMessage(info, where);
    await this.messages.updatePart({ id: this.messages.newPartID(), sessionID, messageID: info.id, type: 'compaction', auto: input.auto }, where);
  }

  async process(instance: Instance, history: MessageWithParts[], parent: UserMessage, auto: boolean, signal: AbortSignal): Promise<'continue' | 'stop'> {
    const where = { directory: instance.directory };
    const agent = (await this.agents.get(instance, 'compaction')) ?? (await this.agents.defaultAgent(instance));
    const assistant = newAssistantMessage(this.messages.newMessageID(), instance, parent, 'compaction', parent.model, true);
    const services = { messages: this.messages, sessions: this.sessions, providers: this.providers };
    const resolved = await resolveStepModel(services, instance, assistant, async () =>
      agent.model ?? (parent.model.providerID ? parent.model : await this.providers.defaultModel(instance)),
    );
    if (resolved === 'stop') return resolved;
    await this.messages.updateMessage(assistant, where);
    const outcome = await this.processor.process({
      instance,
      directory: instance.directory,
      worktree: instance.worktree,
      assistant,
      agent,
      ...resolved,
      system: agent.prompt ? [agent.prompt] : [],
      messages: [...toModelMessages(history), { role: 'user', content: [{ type: 'text', text: COMPACTION_REQUEST }] }],
      tools: [],
      invalid: this.registry.get('invalid')!,
      abort: signal,
    });
    if (outcome === 'continue' && auto) {
      const info: UserMessage = { id: this.messages.newMessageID(), sessionID: parent.sessionID, role: 'user', time: { created: Date.now() }, agent: parent.agent, model: parent.model };
      await this.messages.updateMessage(info, where);
      const now = Date.now();
      await this.messages.updatePart(
        { id: this.messages.newPartID(), sessionID: parent.sessionID, messageID: info.id, type: 'text', synthetic: true, text: CONTINUE_TEXT, time: { start: now, end: now } },
        where,
      );
    }
    if (assistant.error) return 'stop';
    await this.sessions.publish(parent.sessionID, 'session.compacted', { sessionID: parent.sessionID }, instance.directory);
    return 'continue';
  }

  async overflowed(instance: Instance, history: MessageWithParts[], user: UserMessage): Promise<boolean> {
    const finished = history.findLast(({ info }) => info.role === 'assistant' && info.finish)?.info as AssistantMessage | undefined;
    if (!finished || finished.summary === true || !user.model.providerID) return false;
    const config = await this.config.get(instance);
    if (config.compaction?.auto === false) return false;
    try {
      const model = await this.providers.resolveModel(instance, user.model.providerID, user.model.modelID);
      return isOverflow(finished.tokens, model.model.limit);
    } catch {
      // An unknown model fails the step that follows, with an error saying what to configure.
      return false;
    }
  }

  async prune(instance: Instance, sessionID: string): Promise<void> {
    try {
      if ((await this.config.get(instance)).compaction?.prune === false) return;
      const history = await this.messages.list(sessionID);
      let total = 0;
      let pruned = 0;
      let turns = 0;
      const stale: (Part & { state: CompletedToolState })[] = [];
      scan: for (let m = history.length - 1; m >= 0; m--) {
        const { info, parts } = history[m];
        if (info.role === 'user') turns++;
        if (turns < 2) continue;
        if (info.role === 'assistant' && info.summary) break;
        for (let p = parts.length - 1; p >= 0; p--) {
          const part = parts[p] as Part & { state?: CompletedToolState };
          if (part.type !== 'tool' || part.state?.status !== 'completed') continue;
          // Everything older was pruned by an earlier run.
          if (part.state.time.compacted) break scan;
          const tokens = estimateTokens(part.state.output ?? '');
          total += tokens;
          if (total <= PRUNE_PROTECT) continue;
          pruned += tokens;
          stale.push(part as Part & { state: CompletedToolState });
        }
      }
      if (pruned <= PRUNE_MINIMUM) return;
      const now = Date.now();
      for (const part of stale) {
        part.state = { ...part.state, time: { ...part.state.time, compacted: now } };
        await this.messages.updatePart(part, { directory: instance.directory });
      }
      this.logger.log({ msg: 'pruned old tool outputs', sessionID, parts: stale.length, tokens: pruned });
    } catch (error) {
      this.logger.warn({ msg: 'pruning failed', sessionID, error: String(error) });
    }
  }
}
