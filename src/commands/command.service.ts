/**
 * CommandService — the slash commands of an Instance (reference `Command`).
 *
 *   list(instance): Promise<CommandInfo[]>                 built-ins `init` and `review`, then config `command` entries and markdown commands (later wins)
 *   get(instance, name): Promise<CommandInfo | undefined>  one command: template, agent, model ("provider/model"), subtask, hints
 *   hints(template): string[]                              `$1…$n` (sorted, unique) then `$ARGUMENTS`, as found in the template
 *   renderCommandTemplate(template, args): string          (./command-template) the prompt text for `session.command`
 */
import { Injectable } from '@nestjs/common';
import { ConfigService } from '../config/config.service';
import type { Instance } from '../projects/instance.service';
import { builtInCommands } from './builtin-commands';

export interface CommandInfo {
  name: string;
  description?: string;
  agent?: string;
  model?: string;
  mcp?: boolean;
  template: string;
  subtask?: boolean;
  hints: string[];
}

export function hints(template: string): string[] {
  const numbered = [...new Set(template.match(/\$\d+/g) ?? [])].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  return template.includes('$ARGUMENTS') ? [...numbered, '$ARGUMENTS'] : numbered;
}

@Injectable()
export class CommandService {
  constructor(private readonly config: ConfigService) {}

  async list(instance: Instance): Promise<CommandInfo[]> {
    const config = await this.config.get(instance);
    const commands = new Map<string, CommandInfo>();
    for (const command of builtInCommands(instance.worktree)) commands.set(command.name, { ...command, hints: hints(command.template) });
    for (const [name, entry] of Object.entries(config.command ?? {})) {
      commands.set(name, {
        name,
        template: entry.template,
        ...(entry.description !== undefined ? { description: entry.description } : {}),
        ...(entry.agent !== undefined ? { agent: entry.agent } : {}),
        ...(entry.model !== undefined ? { model: entry.model } : {}),
        ...(entry.subtask !== undefined ? { subtask: entry.subtask } : {}),
        hints: hints(entry.template),
      });
    }
    return [...commands.values()];
  }

  async get(instance: Instance, name: string): Promise<CommandInfo | undefined> {
    return (await this.list(instance)).find((c) => c.name === name);
  }
}
