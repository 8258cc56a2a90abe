import type { z } from 'zod';
import { zod } from '../providers/ai-sdk';

/** What a tool call asks permission for; `subjects` are matched against the agent's rules, `pattern` is what an approval remembers. */
export interface PermitRequest {
  type: 'edit' | 'bash' | 'webfetch' | 'external_directory' | 'doom_loop';
  /**
   * What the agent's wildcard rules are evaluated against (bash: each sub-command's words, quotes
   * removed and single-spaced, so `git "push"` meets a `git push *` rule), and what the request
   * lists as its `patterns` unless `patterns` says otherwise: an edit's file from the worktree,
   * webfetch's URL. Absent: the keys.
   */
  subjects?: string[];
  /** What opencode 1.1+ lists as the request's `patterns` when not the subjects (bash: each sub-command as written). */
  patterns?: string[];
  /** Keys an "always" reply approves; absent means the type itself. */
  pattern?: string[];
  title: string;
  metadata?: Record<string, unknown>;
}

/** A child session run by the `task` tool, provided by the prompt loop. */
export interface SubtaskRequest {
  description: string;
  prompt: string;
  agent: string;
}

/** Everything a tool may use while it runs; the prompt loop builds one per call. */
export interface ToolContext {
  sessionID: string;
  messageID: string;
  callID: string;
  agent: string;
  /** The session's directory: tools confine themselves to it unless `external_directory` is granted. */
  directory: string;
  worktree: string;
  abort: AbortSignal;
  /** Updates the running tool part's title/metadata (e.g. streamed bash output). */
  metadata(update: { title?: string; metadata?: Record<string, unknown> }): void;
  /** Resolves when allowed (by rule or by the user), rejects with a PermissionDeniedError otherwise. */
  permit(request: PermitRequest): Promise<void>;
  /** Publishes an event of the session's directory (e.g. `file.edited`). */
  publish(type: string, properties: unknown): void;
  subtask?(request: SubtaskRequest): Promise<{ sessionID: string; output: string }>;
}

export interface ToolResult {
  title: string;
  output: string;
  metadata: Record<string, unknown>;
}

export interface ToolDefinition<P extends z.ZodType = z.ZodType> {
  id: string;
  description: string;
  parameters: P;
  execute(args: z.infer<P>, ctx: ToolContext): Promise<ToolResult>;
}

/** A tool failure whose message is shown to the model as the tool's error. */
export class ToolError extends Error {}

/** The user (or a rule) refused the call: the turn stops after this step, as in the reference. */
export class PermissionDeniedError extends ToolError {
  constructor(
    message: string,
    readonly byUser: boolean,
  ) {
    super(message);
  }
}

export const REJECTED_MESSAGE =
  'The user rejected permission to use this specific tool call. You may try again with different parameters.';

/** A tool as written: its parameters made by a function of zod's `z`, called once, on first use. */
interface ToolSource<P extends z.ZodType> extends Omit<ToolDefinition<P>, 'parameters'> {
  parameters: (zod: typeof z) => P;
}

export function defineTool<P extends z.ZodType>(source: ToolSource<P>): ToolDefinition<P> {
  let parameters: P | undefined;
  return {
    ...source,
    get parameters() {
      return (parameters ??= source.parameters(zod().z));
    },
  };
}
