import { Injectable } from '@nestjs/common';
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentService } from '../agents/agent.service';
import { renderCommandTemplate } from '../commands/command-template';
import { CommandService } from '../commands/command.service';
import { AllowedDirectories } from '../common/allowed-directories';
import { NotFoundError } from '../common/errors';
import type { MessageWithParts } from '../messages/message.entity';
import type { Instance } from '../projects/instance.service';
import { ProjectService } from '../projects/project.service';
import { parseModel, ProviderService } from '../providers/provider.service';
import type { ModelRef } from '../providers/provider.service';
import { SessionService } from '../sessions/session.service';
import { runShell } from '../tools/builtin/bash.tool';
import { PromptLoop } from './prompt-loop.service';
import { checkAttachments } from './user-parts';
import type { PartInput } from './user-parts';

export interface CommandInput {
  messageID?: string;
  agent?: string;
  model?: string;
  arguments: string;
  command: string;
  variant?: string;
}

const SHELL_SUBSTITUTION = /!`([^`]+)`/g;
const FILE_REFERENCE = /(?<![\w`])@(\.?[^\s`,@]*[^\s`,.@])/g;
const SUBSTITUTION_TIMEOUT_MS = 30_000;

/**
 * `POST /session/{id}/command`: renders a command template (`$1…$n`, `$ARGUMENTS`, `` !`cmd` ``,
 * `@file`) into a prompt, runs it (as a subtask for subagents or `subtask: true`) and publishes
 * `command.executed`.
 */
@Injectable()
export class CommandRunner {
  constructor(
    private readonly loop: PromptLoop,
    private readonly commands: CommandService,
    private readonly agents: AgentService,
    private readonly providers: ProviderService,
    private readonly sessions: SessionService,
    private readonly projects: ProjectService,
    private readonly allowed: AllowedDirectories,
  ) {}

  async run(instance: Instance, sessionID: string, input: CommandInput): Promise<MessageWithParts> {
    await this.sessions.get(sessionID);
    const command = await this.commands.get(instance, input.command);
    if (!command) throw new NotFoundError(`Command not found: ${input.command}`, { command: input.command });
    const rendered = renderCommandTemplate(command.template.replaceAll('${path}', instance.worktree), input.arguments);
    const text = await this.substituteShell(rendered, instance.directory);
    const agentName = command.agent ?? input.agent ?? (await this.agents.defaultAgent(instance)).name;
    const agent = await this.agents.get(instance, agentName);
    const model = await this.chooseModel(instance, sessionID, command.model ?? (agent?.model ? `${agent.model.providerID}/${agent.model.modelID}` : input.model));
    const subtask = agent?.mode === 'subagent' || command.subtask === true;
    const parts: PartInput[] = subtask
      ? [{ type: 'subtask', agent: agentName, description: command.description ?? input.command, command: input.command, prompt: text }]
      : [{ type: 'text', text }, ...(await this.fileReferences(text, instance))];
    await checkAttachments(parts, this.allowed);
    const result = await this.loop.prompt(instance, sessionID, {
      ...(input.messageID ? { messageID: input.messageID } : {}),
      ...(model ? { model } : {}),
      agent: subtask ? (input.agent ?? (await this.agents.defaultAgent(instance)).name) : agentName,
      ...(input.variant ? { variant: input.variant } : {}),
      parts,
    });
    // As the reference's command.executed subscriber: a finished `init` marks the project initialized.
    if (input.command === 'init') await this.projects.markInitialized(instance.project.id);
    await this.sessions.publish(sessionID, 'command.executed', { name: input.command, sessionID, arguments: input.arguments, messageID: result.info.id }, instance.directory);
    return result;
  }

  /** An unknown model is the caller's mistake: `session.error` and a 400 (reference behaviour). */
  private async chooseModel(instance: Instance, sessionID: string, model: string | undefined): Promise<ModelRef | undefined> {
    if (!model) return undefined;
    const ref = parseModel(model);
    try {
      await this.providers.resolveModel(instance, ref.providerID, ref.modelID);
    } catch (error) {
      const data = error instanceof Error ? { message: error.message } : { message: String(error) };
      await this.sessions.publish(sessionID, 'session.error', { sessionID, error: { name: 'UnknownError', data } }, instance.directory);
      throw error;
    }
    return ref;
  }

  /** `` !`cmd` `` becomes the command's output, run in the session directory (its real path, checked now). */
  private async substituteShell(template: string, directory: string): Promise<string> {
    const matches = [...template.matchAll(SHELL_SUBSTITUTION)];
    if (matches.length === 0) return template;
    const cwd = await this.allowed.real(directory);
    const outputs = await Promise.all(
      matches.map((m) => runShell(m[1], { cwd, timeoutMs: SUBSTITUTION_TIMEOUT_MS, signal: new AbortController().signal }).then((r) => r.output.trimEnd())),
    );
    let i = 0;
    return template.replace(SHELL_SUBSTITUTION, () => outputs[i++]);
  }

  /** `@path` mentions of existing files and directories become file parts; `@name` of an agent an agent part. */
  private async fileReferences(text: string, instance: Instance): Promise<PartInput[]> {
    const parts: PartInput[] = [];
    const seen = new Set<string>();
    for (const match of text.matchAll(FILE_REFERENCE)) {
      const name = match[1];
      if (seen.has(name)) continue;
      seen.add(name);
      const path = resolve(instance.directory, name.replace(/^~\//, `${process.env.HOME ?? ''}/`));
      const info = await stat(path).catch(() => undefined);
      if (info) {
        parts.push({ type: 'file', url: pathToFileURL(path).href, filename: basename(path), mime: info.isDirectory() ? 'application/x-directory' : 'text/plain' });
      } else if (await this.agents.get(instance, name)) {
        parts.push({ type: 'agent', name });
      }
    }
    return parts;
  }
}
