import type { Checker } from '../validation';

export interface ConversationMessage {
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string | Record<string, unknown>[];
  name?: string;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

const ROLES = ['user', 'assistant', 'system', 'tool'] as const;

export function validateMessages(value: unknown, check: Checker): ConversationMessage[] {
  if (!Array.isArray(value) || value.length === 0) {
    check.fail(['messages'], 'must be a non-empty array');
    return [];
  }
  value.forEach((m, i) => {
    if (!m || typeof m !== 'object') return check.fail(['messages', i], 'must be an object');
    const msg = m as Record<string, unknown>;
    check.oneOf(msg.role, ['messages', i, 'role'], ROLES);
    if (msg.role === undefined) check.fail(['messages', i, 'role'], 'is required');
    if (typeof msg.content !== 'string' && !Array.isArray(msg.content)) {
      if (!(msg.role === 'assistant' && Array.isArray(msg.tool_calls))) check.fail(['messages', i, 'content'], 'must be a string or an array of parts');
    }
    if (Array.isArray(msg.content)) {
      msg.content.forEach((p: unknown, j) => {
        const part = p as Record<string, unknown> | null;
        if (!part || (part.type !== 'text' && part.type !== 'image_url')) check.fail(['messages', i, 'content', j, 'type'], 'must be text or image_url');
        else if (part.type === 'text' && typeof part.text !== 'string') check.fail(['messages', i, 'content', j, 'text'], 'must be a string');
      });
    }
  });
  return value as ConversationMessage[];
}

function partText(part: Record<string, unknown>): string {
  if (part.type === 'text') return String(part.text);
  const image = (part.imageUrl ?? part.image_url) as { url?: string } | undefined;
  return `[image: ${image?.url ?? 'attached'}]`;
}

/** One line per turn, `role: text`, tool calls and results spelled out. */
export function renderTurn(message: ConversationMessage): string {
  const text = typeof message.content === 'string' ? message.content : (message.content ?? []).map(partText).join(' ');
  const calls = (message.tool_calls ?? [])
    .map((c) => {
      const call = c as { function?: { name?: string; arguments?: string } };
      return ` [tool call ${call.function?.name ?? 'unknown'}(${call.function?.arguments ?? ''})]`;
    })
    .join('');
  const who = message.role === 'tool' ? `tool${message.tool_call_id ? ` ${message.tool_call_id}` : ''}` : message.role;
  return `${who}: ${text.replace(/\s*\n\s*/g, ' ')}${calls}`.trim();
}

function turnKey(message: ConversationMessage): string {
  return JSON.stringify([message.role, message.content, message.tool_calls ?? null, message.tool_call_id ?? null]);
}

/**
 * Merge a resent or appended conversation into the stored turns: when the stored turns are a prefix
 * of what was sent, the whole conversation was resent; otherwise the sent turns are new ones
 * (skipping any leading overlap with the stored tail).
 */
export function mergeTurns(stored: ConversationMessage[], sent: ConversationMessage[]): ConversationMessage[] {
  const storedKeys = stored.map(turnKey);
  const sentKeys = sent.map(turnKey);
  if (storedKeys.length <= sentKeys.length && storedKeys.every((k, i) => k === sentKeys[i])) return sent;
  let overlap = Math.min(storedKeys.length, sentKeys.length);
  while (overlap > 0 && !storedKeys.slice(-overlap).every((k, i) => k === sentKeys[i])) overlap--;
  return [...stored, ...sent.slice(overlap)];
}
