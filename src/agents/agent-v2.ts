import type { PermissionAction } from '../config/config.service';
import type { AgentInfo } from './builtin-agents';

/** opencode 1.18's `PermissionV2Rule`: may `action` act on `resource`. */
interface PermissionRule {
  action: string;
  resource: string;
  effect: PermissionAction;
}

/** An agent in the shape of opencode's v2 API (`/api/agent`). */
export interface AgentV2Info {
  id: string;
  model?: { id: string; providerID: string };
  request: { headers: Record<string, string>; body: Record<string, unknown> };
  system?: string;
  description?: string;
  mode: AgentInfo['mode'];
  hidden: boolean;
  color?: string;
  steps?: number;
  permissions: PermissionRule[];
}

const COLOR = /^#[0-9a-fA-F]{6}$|^(primary|secondary|accent|success|warning|error|info)$/;

/**
 * An agent's permissions as an ordered rule list, the way opencode 1.18 writes them (a later rule
 * wins): each permission, `bash` and `skill` patterns from the broadest to the most specific (Keel's
 * own rule: the longest matching pattern wins), then the agent's tool switches (a tool switched off
 * in Keel is off whatever its permission says).
 */
function permissionRules(agent: AgentInfo): PermissionRule[] {
  const rules: PermissionRule[] = [];
  const patterns = (action: string, map: Record<string, PermissionAction>) =>
    Object.entries(map)
      .sort(([a], [b]) => a.length - b.length)
      .map(([resource, effect]) => ({ action, resource, effect }));
  rules.push({ action: 'edit', resource: '*', effect: agent.permission.edit });
  rules.push(...patterns('bash', agent.permission.bash), ...patterns('skill', agent.permission.skill));
  for (const action of ['webfetch', 'doom_loop', 'external_directory'] as const) {
    const effect = agent.permission[action];
    if (effect) rules.push({ action, resource: '*', effect });
  }
  for (const [tool, on] of Object.entries(agent.tools)) rules.push({ action: tool, resource: '*', effect: on ? 'allow' : 'deny' });
  return rules;
}

export function agentV2(agent: AgentInfo): AgentV2Info {
  const body: Record<string, unknown> = {
    ...agent.options,
    ...(agent.temperature !== undefined ? { temperature: agent.temperature } : {}),
    ...(agent.topP !== undefined ? { top_p: agent.topP } : {}),
  };
  return {
    id: agent.name,
    ...(agent.model ? { model: { id: agent.model.modelID, providerID: agent.model.providerID } } : {}),
    request: { headers: {}, body },
    ...(agent.prompt !== undefined ? { system: agent.prompt } : {}),
    ...(agent.description !== undefined ? { description: agent.description } : {}),
    mode: agent.mode,
    hidden: agent.hidden ?? false,
    ...(agent.color && COLOR.test(agent.color) ? { color: agent.color } : {}),
    ...(agent.maxSteps !== undefined && Number.isInteger(agent.maxSteps) && agent.maxSteps > 0 ? { steps: agent.maxSteps } : {}),
    permissions: permissionRules(agent),
  };
}
