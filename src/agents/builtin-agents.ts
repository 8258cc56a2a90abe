import type { PermissionAction } from '../config/config.service';

/** The reference `Agent` (what `GET /agent` lists and the assistant loop runs with). */
export interface AgentInfo {
  name: string;
  description?: string;
  mode: 'subagent' | 'primary' | 'all';
  native?: boolean;
  hidden?: boolean;
  default?: boolean;
  topP?: number;
  temperature?: number;
  color?: string;
  permission: AgentPermission;
  model?: { providerID: string; modelID: string };
  prompt?: string;
  tools: Record<string, boolean>;
  options: Record<string, unknown>;
  maxSteps?: number;
}

export interface AgentPermission {
  edit: PermissionAction;
  bash: Record<string, PermissionAction>;
  skill: Record<string, PermissionAction>;
  webfetch?: PermissionAction;
  doom_loop?: PermissionAction;
  external_directory?: PermissionAction;
}

export const DEFAULT_PERMISSION: AgentPermission = {
  edit: 'allow',
  bash: { '*': 'allow' },
  skill: { '*': 'allow' },
  webfetch: 'allow',
  doom_loop: 'ask',
  external_directory: 'ask',
};

/** The plan agent reads but does not change: no edits, and only read-only shell commands run unasked. */
export const PLAN_PERMISSION: Partial<AgentPermission> = {
  edit: 'deny',
  bash: {
    'cat*': 'allow',
    'cut*': 'allow',
    'diff*': 'allow',
    'du*': 'allow',
    'file *': 'allow',
    'find * -delete*': 'ask',
    'find * -exec*': 'ask',
    'find *': 'allow',
    'git diff*': 'allow',
    'git log*': 'allow',
    'git show*': 'allow',
    'git status*': 'allow',
    'git branch': 'allow',
    'git branch -v': 'allow',
    'grep*': 'allow',
    'head*': 'allow',
    'ls*': 'allow',
    'pwd*': 'allow',
    'rg*': 'allow',
    'sort*': 'allow',
    'stat*': 'allow',
    'tail*': 'allow',
    'tree*': 'allow',
    'uniq*': 'allow',
    'wc*': 'allow',
    'which*': 'allow',
    '*': 'ask',
  },
  webfetch: 'allow',
};

const EXPLORE_PROMPT = `You are a fast, read-only codebase explorer. Find files by name patterns, search contents for keywords and read what you find to answer the question you were given.
Use glob and grep liberally, read only the parts of files you need, and never modify anything.
Match your effort to the thoroughness requested ("quick", "medium" or "very thorough").
Answer with the absolute paths and line numbers that support your findings, then a short summary.`;

const COMPACTION_PROMPT = `You summarise a coding conversation so that it can continue in a fresh context.
Write a dense summary covering: the user's goals and constraints, decisions taken, files read or changed (with paths), commands run and their outcomes, the current state of the work, and the concrete next steps.
Keep identifiers, paths and error messages verbatim. Do not invent anything.`;

const TITLE_PROMPT = `You write a title for a conversation from its first message.
Reply with the title only: one line, at most 50 characters, in the language of the message, no quotes, no trailing punctuation.
Describe what the user wants to do, not how you will answer.`;

const SUMMARY_PROMPT = `Summarise what was done in this conversation turn in two or three short sentences, for a list of changes.
Mention the files changed and the reason. Reply with the summary only.`;

/** The built-in agents, before config: build and plan (primary), general and explore (subagents), hidden helpers. */
export function builtInAgents(permission: AgentPermission, plan: AgentPermission): AgentInfo[] {
  return [
    { name: 'build', mode: 'primary', native: true, permission, tools: {}, options: {} },
    { name: 'plan', mode: 'primary', native: true, permission: plan, tools: {}, options: {} },
    {
      name: 'general',
      description: 'General-purpose agent for researching complex questions and executing multi-step tasks. Use it to run several units of work in parallel.',
      mode: 'subagent',
      native: true,
      hidden: true,
      permission,
      tools: { todoread: false, todowrite: false },
      options: {},
    },
    {
      name: 'explore',
      description:
        'Fast agent specialised in exploring codebases: finding files by pattern, searching code for keywords, answering questions about how the code works. Say how thorough it should be: "quick", "medium" or "very thorough".',
      mode: 'subagent',
      native: true,
      prompt: EXPLORE_PROMPT,
      permission,
      tools: { todoread: false, todowrite: false, edit: false, write: false },
      options: {},
    },
    { name: 'compaction', mode: 'primary', native: true, hidden: true, prompt: COMPACTION_PROMPT, permission, tools: { '*': false }, options: {} },
    { name: 'title', mode: 'primary', native: true, hidden: true, temperature: 0.5, prompt: TITLE_PROMPT, permission, tools: { '*': false }, options: {} },
    { name: 'summary', mode: 'primary', native: true, hidden: true, prompt: SUMMARY_PROMPT, permission, tools: { '*': false }, options: {} },
  ];
}
