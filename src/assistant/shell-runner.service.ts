import { Injectable } from '@nestjs/common';
import { AgentService } from '../agents/agent.service';
import { AllowedDirectories } from '../common/allowed-directories';
import type { MessageWithParts, Part, UserMessage } from '../messages/message.entity';
import { MessageService } from '../messages/message.service';
import type { Instance } from '../projects/instance.service';
import type { ModelRef } from '../providers/provider.service';
import { SessionService } from '../sessions/session.service';
import { SessionStatusService } from '../sessions/session-status.service';
import { RevertService } from '../snapshots/revert.service';
import { runShell, shellCommandProblem } from '../tools/builtin/bash.tool';
import { issue, ValidationError } from '../common/errors';
import { PromptLoop } from './prompt-loop.service';
import { newAssistantMessage } from './step-model';

export interface ShellInput {
  agent: string;
  model?: ModelRef;
  command: string;
}

/** Longest a user's shell command may run (it is theirs to abort). */
const SHELL_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * `POST /session/{id}/shell`: the user runs a command without the model. A user message and an
 * assistant message with one `bash` tool part whose output streams into `state.metadata.output`.
 */
@Injectable()
export class ShellRunner {
  constructor(
    private readonly loop: PromptLoop,
    private readonly sessions: SessionService,
    private readonly messages: MessageService,
    private readonly status: SessionStatusService,
    private readonly agents: AgentService,
    private readonly reverts: RevertService,
    private readonly allowed: AllowedDirectories,
  ) {}

  async run(instance: Instance, sessionID: string, input: ShellInput): Promise<MessageWithParts> {
    const problem = shellCommandProblem(input.command);
    if (problem) throw new ValidationError([issue(['command'], problem)], input);
    await this.sessions.get(sessionID);
    // Checked (and run in its real path) before anything is written, as the command starts.
    const cwd = await this.allowed.real(instance.directory);
    const signal = this.loop.claim(instance, sessionID);
    const where = { directory: instance.directory };
    try {
      await this.status.set(sessionID, { type: 'busy' }, instance.directory);
      await this.reverts.cleanup(sessionID);
      const session = await this.sessions.get(sessionID);
      const agent = (await this.agents.get(instance, input.agent)) ?? (await this.agents.defaultAgent(instance));
      const user = await this.loop.createUserMessage(instance, session, {
        agent: agent.name,
        ...(input.model ? { model: input.model } : {}),
        parts: [{ type: 'text', text: 'The following tool was executed by the user', synthetic: true }],
      });
      const model = user.info.role === 'user' ? user.info.model : { providerID: '', modelID: '' };
      const assistant = newAssistantMessage(this.messages.newMessageID(), instance, user.info as UserMessage, agent.name, model);
      await this.messages.updateMessage(assistant, where);
      const start = Date.now();
      const commandInput = { command: input.command };
      const part: Part = { id: this.messages.newPartID(), sessionID, messageID: assistant.id, type: 'tool', callID: this.messages.newPartID(), tool: 'bash', state: { status: 'running', input: commandInput, time: { start } } };
      await this.messages.updatePart(part, where);
      let writes: Promise<unknown> = Promise.resolve();
      const result = await runShell(input.command, {
        cwd,
        timeoutMs: SHELL_TIMEOUT_MS,
        signal,
        onOutput: (output) => {
          const snapshot = { ...part, state: { status: 'running', input: commandInput, metadata: { output, description: '' }, time: { start } } };
          writes = writes.then(() => this.messages.updatePart(snapshot, where));
        },
      });
      await writes;
      const output = result.aborted ? `${result.output}\n\nUser aborted the command` : result.output;
      part.state = { status: 'completed', input: commandInput, output, title: '', metadata: { output, description: '' }, time: { start, end: Date.now() } };
      await this.messages.updatePart(part, where);
      assistant.time.completed = Date.now();
      await this.messages.updateMessage(assistant, where);
      return { info: assistant, parts: [part] };
    } finally {
      await this.loop.release(sessionID, instance.directory);
    }
  }
}
