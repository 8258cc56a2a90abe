import type { PermitRequest } from './tool';
import { wildcardLookup } from '../common/wildcard';
import type { PermissionAction, PermissionConfig } from '../config/config.service';

/** The reference defaults: out of the box only `external_directory` and `doom_loop` ask. */
const DEFAULT_PERMISSIONS: Required<Omit<PermissionConfig, 'skill'>> = {
  edit: 'allow',
  bash: { '*': 'allow' },
  webfetch: 'allow',
  external_directory: 'ask',
  doom_loop: 'ask',
};

const SEVERITY: Record<PermissionAction, number> = { allow: 0, ask: 1, deny: 2 };

/** allow / ask / deny for one request under an agent's `permission` config; for bash the strictest verdict over its sub-commands. */
export function resolvePermission(config: PermissionConfig | undefined, request: PermitRequest): PermissionAction {
  const rule = config?.[request.type] ?? DEFAULT_PERMISSIONS[request.type];
  if (typeof rule === 'string') return rule;
  const subjects = request.subjects && request.subjects.length > 0 ? request.subjects : ['*'];
  let verdict: PermissionAction = 'allow';
  for (const subject of subjects) {
    const action = wildcardLookup(subject, rule) ?? 'ask';
    if (SEVERITY[action] > SEVERITY[verdict]) verdict = action;
  }
  return verdict;
}

/** The reference's wording when a rule denies a call outright. */
export function deniedMessage(request: PermitRequest, config: PermissionConfig | undefined): string {
  if (request.type === 'bash') {
    return `The user has specifically restricted access to this command, you are not allowed to execute it. Here is the configuration: ${JSON.stringify(config?.bash ?? DEFAULT_PERMISSIONS.bash)}`;
  }
  return `The user has specifically restricted access to ${request.type}: ${request.title}`;
}
