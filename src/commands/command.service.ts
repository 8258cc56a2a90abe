/**
 * CommandService — the slash commands of an Instance (reference `Command`).
 *
 *   list(instance): Promise<CommandInfo[]>                 built-ins `init` and `review`, then config `command` entries and markdown commands (later wins), then skills
 *                                                          (`source: "skill"`, as opencode 1.18 lists them: its `/skills` dialog runs a skill as `/name`)
 *   get(instance, name): Promise<CommandInfo | undefined>  one command: template, agent, model ("provider/model"), subtask, hints
 *   listV2(instance): Promise<CommandV2Info[]>             the commands (not skills) in opencode's v2 API shape
 *   hints(template): string[]                              `$1…$n` (sorted, unique) then `$ARGUMENTS`, as found in the template
 *   renderCommandTemplate(template, args): string          (./command-template) the prompt text for `session.command`
 */
import { Injectable } from '@nestjs/common';
import { ConfigService } from '../config/config.service';
import type { Instance } from '../projects/instance.service';
import { SkillService } from '../skills/skill.service';
import { builtInCommands } from './builtin-commands';

export interface CommandInfo {
  name: string;
  description?: string;
  agent?: string;
  model?: string;
  mcp?: boolean;
  /** Where the command comes from (opencode 1.18): a command definition or a skill. */
  source: 'command' | 'skill';
  template: string;
  subtask?: boolean;
  hints: string[];
}

/** A command in the shape of opencode's v2 API (`/api/command`): the model as a reference, no hints. */
export interface CommandV2Info {
  name: string;
  template: string;
  description?: string;
  agent?: string;
  model?: { id: string; providerID: string };
  subtask?: boolean;
}

function hints(template: string): string[] {
  const numbered = [...new Set(template.match(/\$\d+/g) ?? [])].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  return template.includes('$ARGUMENTS') ? [...numbered, '$ARGUMENTS'] : numbered;
}

@Injectable()
export class CommandService {
  constructor(
    private readonly config: ConfigService,
    private readonly skills: SkillService,
  ) {}

  async list(instance: Instance): Promise<CommandInfo[]> {
    const [config, skills] = await Promise.all([this.config.get(instance), this.skills.list(instance)]);
    const commands = new Map<string, CommandInfo>();
    for (const command of builtInCommands(instance.worktree)) commands.set(command.name, { ...command, source: 'command', hints: hints(command.template) });
    for (const [name, entry] of Object.entries(config.command ?? {})) {
      commands.set(name, {
        name,
        source: 'command',
        template: entry.template,
        ...(entry.description !== undefined ? { description: entry.description } : {}),
        ...(entry.agent !== undefined ? { agent: entry.agent } : {}),
        ...(entry.model !== undefined ? { model: entry.model } : {}),
        ...(entry.subtask !== undefined ? { subtask: entry.subtask } : {}),
        hints: hints(entry.template),
      });
    }
    for (const skill of skills) {
      if (commands.has(skill.name)) continue;
      commands.set(skill.name, {
        name: skill.name,
        ...(skill.description !== undefined ? { description: skill.description } : {}),
        source: 'skill',
        template: this.skills.asCommandTemplate(skill),
        hints: [],
      });
    }
    return [...commands.values()];
  }

  async listV2(instance: Instance): Promise<CommandV2Info[]> {
    return (await this.list(instance))
      .filter((command) => command.source === 'command')
      .map(({ name, template, description, agent, model, subtask }) => {
        const slash = model?.indexOf('/') ?? -1;
        return {
          name,
          template,
          ...(description !== undefined ? { description } : {}),
          ...(agent !== undefined ? { agent } : {}),
          ...(model !== undefined && slash > 0 ? { model: { id: model.slice(slash + 1), providerID: model.slice(0, slash) } } : {}),
          ...(subtask !== undefined ? { subtask } : {}),
        };
      });
  }

  async get(instance: Instance, name: string): Promise<CommandInfo | undefined> {
    return (await this.list(instance)).find((c) => c.name === name);
  }
}
