import type { ModelMessage } from 'ai';
import type { MessageWithParts, Part } from '../messages/message.entity';

type AssistantContent = Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string>;
type ToolContent = Extract<ModelMessage, { role: 'tool' }>['content'];
type UserContent = Exclude<Extract<ModelMessage, { role: 'user' }>['content'], string>;

interface ToolState {
  status: 'pending' | 'running' | 'completed' | 'error';
  input?: Record<string, unknown>;
  output?: string;
  error?: string;
  time?: { compacted?: number };
}

function userContent(parts: Part[]): UserContent {
  const content: UserContent = [];
  for (const part of parts) {
    if (part.type === 'text' && !part.ignored) content.push({ type: 'text', text: String(part.text) });
    // A compaction request reads as this question, answered by the summary that follows it (reference wording).
    else if (part.type === 'compaction') content.push({ type: 'text', text: 'What did we do so far?' });
    else if (part.type === 'file') {
      const url = String(part.url);
      const mime = String(part.mime);
      // Text and directories were already expanded into synthetic text parts; only data URLs go to the model.
      if (url.startsWith('data:') && mime !== 'text/plain' && mime !== 'application/x-directory') {
        content.push({ type: 'file', data: url, mediaType: mime, ...(typeof part.filename === 'string' ? { filename: part.filename } : {}) });
      }
    }
  }
  return content;
}

/** The conversation as AI SDK messages: user text/files, assistant text/reasoning/tool calls, tool results. */
export function toModelMessages(history: MessageWithParts[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const { info, parts } of history) {
    if (info.role === 'user') {
      const content = userContent(parts);
      if (content.length > 0) out.push({ role: 'user', content });
      continue;
    }
    // A failed reply adds nothing the model should build on, unless it was aborted after producing output.
    if (info.error && info.error.name !== 'MessageAbortedError') continue;
    const assistant: AssistantContent = [];
    const results: ToolContent = [];
    for (const part of parts) {
      if (part.type === 'text' && String(part.text).length > 0) assistant.push({ type: 'text', text: String(part.text) });
      else if (part.type === 'reasoning' && String(part.text).length > 0) assistant.push({ type: 'reasoning', text: String(part.text) });
      else if (part.type === 'tool') {
        const state = part.state as ToolState;
        const toolCallId = String(part.callID);
        const toolName = String(part.tool);
        assistant.push({ type: 'tool-call', toolCallId, toolName, input: state.input ?? {} });
        const output =
          state.status === 'completed'
            ? { type: 'text' as const, value: state.time?.compacted ? '[Old tool result content cleared]' : (state.output ?? '') }
            : { type: 'error-text' as const, value: state.status === 'error' ? (state.error ?? 'error') : '[Tool execution was interrupted]' };
        results.push({ type: 'tool-result', toolCallId, toolName, output });
      }
    }
    if (assistant.length > 0) out.push({ role: 'assistant', content: assistant });
    if (results.length > 0) out.push({ role: 'tool', content: results });
  }
  return out;
}
