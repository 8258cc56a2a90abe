/**
 * AgentService — the agents of an Instance (reference `Agent`).
 *
 *   list(instance): Promise<AgentInfo[]>                      built-ins, then config `agent`/`mode` entries and markdown agents
 *   get(instance, name): Promise<AgentInfo | undefined>       one agent (prompt, model, temperature, topP, tools, permission, maxSteps, options)
 *   defaultAgent(instance): Promise<AgentInfo>                config `default_agent` (must be a visible non-subagent), else `build`
 *   listV2(instance): Promise<AgentV2Info[]>                  the same agents in opencode's v2 API shape (./agent-v2: permissions as rules)
 *
 * Permissions: built-in defaults, then config `permission`, then the agent's own `permission`
 * (a string for `bash`/`skill` means `{"*": value}`). Tools: the agent's built-in switches,
 * then config `tools`, then the agent's own `tools`. Unknown agent-config keys become `options`.
 */
import { Injectable } from '@nestjs/common';
import { BadRequestError } from '../common/errors';
import type { AgentConfig, Config, PermissionAction, PermissionConfig } from '../config/config.service';
import { ConfigService } from '../config/config.service';
import type { Instance } from '../projects/instance.service';
import { parseModel } from '../providers/provider.service';
import { agentV2, AgentV2Info } from './agent-v2';
import { AgentInfo, AgentPermission, builtInAgents, DEFAULT_PERMISSION, PLAN_PERMISSION } from './builtin-agents';

function patterns(value: PermissionAction | Record<string, PermissionAction> | undefined): Record<string, PermissionAction> | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? { '*': value } : value;
}

/** `base` with a config permission block laid over it. */
function mergePermission(base: AgentPermission, override: PermissionConfig | Partial<AgentPermission> | undefined): AgentPermission {
  if (!override) return base;
  const bash = patterns(override.bash);
  const skill = patterns(override.skill);
  return {
    ...base,
    ...(override.edit ? { edit: override.edit } : {}),
    ...(override.webfetch ? { webfetch: override.webfetch } : {}),
    ...(override.doom_loop ? { doom_loop: override.doom_loop } : {}),
    ...(override.external_directory ? { external_directory: override.external_directory } : {}),
    // A bare action replaces every pattern; a pattern map refines the inherited one.
    bash: bash ? (typeof override.bash === 'string' ? bash : { ...base.bash, ...bash }) : base.bash,
    skill: skill ? (typeof override.skill === 'string' ? skill : { ...base.skill, ...skill }) : base.skill,
  };
}

const KNOWN_KEYS = new Set(['model', 'temperature', 'top_p', 'prompt', 'tools', 'disable', 'description', 'mode', 'color', 'maxSteps', 'permission', 'name']);

@Injectable()
export class AgentService {
  constructor(private readonly config: ConfigService) {}

  async list(instance: Instance): Promise<AgentInfo[]> {
    return agentsOf(await this.config.get(instance));
  }

  async get(instance: Instance, name: string): Promise<AgentInfo | undefined> {
    return (await this.list(instance)).find((a) => a.name === name);
  }

  async listV2(instance: Instance): Promise<AgentV2Info[]> {
    return (await this.list(instance)).map(agentV2);
  }

  async defaultAgent(instance: Instance): Promise<AgentInfo> {
    const agents = await this.list(instance);
    const agent = agents.find((a) => a.default);
    if (!agent) throw new BadRequestError('No primary agent is available');
    return agent;
  }
}

function agentsOf(config: Config): AgentInfo[] {
  const base = mergePermission(DEFAULT_PERMISSION, config.permission);
  const plan = mergePermission(mergePermission(DEFAULT_PERMISSION, PLAN_PERMISSION), config.permission);
  const agents = new Map<string, AgentInfo>();
  for (const agent of builtInAgents(base, plan)) agents.set(agent.name, { ...agent, tools: { ...agent.tools, ...config.tools } });
  // `mode` is the deprecated spelling of primary agents.
  const entries: [string, AgentConfig][] = [
    ...Object.entries(config.mode ?? {}).map(([name, value]): [string, AgentConfig] => [name, { mode: 'primary', ...value }]),
    ...Object.entries(config.agent ?? {}),
  ];
  for (const [name, value] of entries) {
    if (value.disable) {
      agents.delete(name);
      continue;
    }
    const item: AgentInfo = agents.get(name) ?? { name, mode: 'all', native: false, permission: base, tools: { ...config.tools }, options: {} };
    const options = Object.fromEntries(Object.entries(value).filter(([key]) => !KNOWN_KEYS.has(key)));
    agents.set(name, {
      ...item,
      ...(value.model ? { model: parseModel(value.model) } : {}),
      ...(value.prompt !== undefined ? { prompt: value.prompt } : {}),
      ...(value.description !== undefined ? { description: value.description } : {}),
      ...(value.temperature !== undefined ? { temperature: value.temperature } : {}),
      ...(value.top_p !== undefined ? { topP: value.top_p } : {}),
      ...(value.mode ? { mode: value.mode } : {}),
      ...(value.color ? { color: value.color } : {}),
      ...(value.maxSteps !== undefined ? { maxSteps: value.maxSteps } : {}),
      tools: { ...item.tools, ...value.tools },
      options: { ...item.options, ...options },
      permission: mergePermission(item.permission, value.permission),
    });
  }
  const wanted = config.default_agent ?? 'build';
  const fallback = [...agents.values()].find((a) => a.mode !== 'subagent' && !a.hidden);
  const chosen = agents.get(wanted);
  const defaultName = chosen && chosen.mode !== 'subagent' && !chosen.hidden ? wanted : fallback?.name;
  return [...agents.values()].map((agent) => (agent.name === defaultName ? { ...agent, default: true } : agent));
}
