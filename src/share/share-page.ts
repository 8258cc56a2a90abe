import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AssistantMessage, MessageWithParts, Part } from '../messages/message.entity';
import type { SharedSession, SharedView } from './share.service';

/**
 * The share page's first paint, rendered here so it reads with JavaScript disabled. Every value
 * from the session is escaped. When the console is built, its `share.html` (the share entry,
 * hashed assets included) is the frame, and its script replaces this content with the console's
 * part renderer and keeps it live.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(value: string | number | undefined | null): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Totals shown in the header: the last model used, summed tokens and cost of the assistant turns. */
function sessionTotals(messages: MessageWithParts[]): { model?: string; tokens: number; cost: number } {
  let model: string | undefined;
  let tokens = 0;
  let cost = 0;
  for (const { info } of messages) {
    if (info.role !== 'assistant') continue;
    const a: AssistantMessage = info;
    model = `${a.providerID}/${a.modelID}`;
    cost += a.cost ?? 0;
    const t = a.tokens;
    if (t) tokens += (t.input ?? 0) + (t.output ?? 0) + (t.reasoning ?? 0) + (t.cache?.read ?? 0) + (t.cache?.write ?? 0);
  }
  return { model, tokens, cost };
}

const json = (value: unknown): string => escapeHtml(typeof value === 'string' ? value : JSON.stringify(value, null, 2));

function renderPart(part: Part): string {
  const p = part as Record<string, any>;
  switch (part.type) {
    case 'text':
      if (p.synthetic || p.ignored) return '';
      return `<div class="part text">${escapeHtml(p.text)}</div>`;
    case 'reasoning':
      return `<details class="part reasoning"><summary>Reasoning</summary><div class="text">${escapeHtml(p.text)}</div></details>`;
    case 'tool': {
      const state = (p.state ?? {}) as Record<string, any>;
      const title = state.title ? ` — ${escapeHtml(state.title)}` : '';
      const output = state.status === 'error' ? state.error : state.output;
      return (
        `<details class="part tool"><summary>Tool <code>${escapeHtml(p.tool)}</code> · ${escapeHtml(state.status)}${title}</summary>` +
        `<pre>${json(state.input ?? {})}</pre>${output !== undefined ? `<pre>${json(output)}</pre>` : ''}</details>`
      );
    }
    case 'file':
      return `<div class="part file">File: ${escapeHtml(p.filename ?? p.url)} <small>${escapeHtml(p.mime)}</small></div>`;
    case 'patch':
      return `<div class="part patch">Changed files: ${((p.files as string[]) ?? []).map((f) => `<code>${escapeHtml(f)}</code>`).join(', ')}</div>`;
    case 'compaction':
      return '<hr class="part compaction" title="Conversation compacted">';
    case 'retry':
      return `<div class="part retry">Retry ${escapeHtml(p.attempt)}: ${escapeHtml(p.error?.data?.message ?? '')}</div>`;
    case 'agent':
      return `<div class="part agent">Agent <code>${escapeHtml(p.name)}</code></div>`;
    case 'subtask':
      return `<div class="part subtask">Subtask: ${escapeHtml(p.description)}</div>`;
    default:
      return '';
  }
}

function errorText(data: Record<string, unknown> | undefined): string {
  const message = data?.message;
  return typeof message === 'string' ? message : '';
}

function renderMessage({ info, parts }: MessageWithParts): string {
  const error = info.role === 'assistant' && info.error ? `<div class="part error">${escapeHtml(info.error.name)}: ${escapeHtml(errorText(info.error.data))}</div>` : '';
  return (
    `<article class="message ${info.role}" id="${escapeHtml(info.id)}"><h3 class="role">${info.role === 'user' ? 'User' : 'Assistant'}</h3>` +
    parts.map(renderPart).join('') +
    error +
    '</article>'
  );
}

function renderSession({ session, messages }: SharedSession, heading: 'h1' | 'h2'): string {
  const totals = sessionTotals(messages);
  return (
    `<section class="session" id="${escapeHtml(session.id)}"><header><${heading}>${escapeHtml(session.title)}</${heading}>` +
    `<p class="meta">${totals.model ? `Model <code>${escapeHtml(totals.model)}</code> · ` : ''}${totals.tokens.toLocaleString('en')} tokens · $${totals.cost.toFixed(4)}</p></header>` +
    messages.map(renderMessage).join('') +
    '</section>'
  );
}

const STYLE = `<style>
.keel-share{max-width:60rem;margin:0 auto;padding:1rem;font-family:system-ui,sans-serif;line-height:1.5;color:#1a1b1e;background:#fff}
@media (prefers-color-scheme:dark){.keel-share{color:#e9ecef;background:#1a1b1e}.keel-share pre{background:#25262b}}
.keel-share .message{content-visibility:auto;contain-intrinsic-size:auto 8rem;border-top:1px solid #8884;padding:.5rem 0}
.keel-share .role{font-size:.9rem;margin:.25rem 0;opacity:.8}
.keel-share .text{white-space:pre-wrap;overflow-wrap:anywhere}
.keel-share pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f1f3f5;padding:.5rem;border-radius:4px;max-height:24rem;overflow:auto}
.keel-share .meta{opacity:.8}
</style>`;

function renderSharedContent(view: SharedView): string {
  return (
    `<main class="keel-share" id="share-static">${renderSession(view, 'h1')}` +
    view.subtasks.map((s) => renderSession(s, 'h2')).join('') +
    '</main>'
  );
}

/** The console's built share entry, read once; undefined when the console is not built. */
let frame: string | null | undefined;
function consoleFrame(consoleDir: string | undefined): string | undefined {
  if (frame === undefined) {
    const path = consoleDir ? join(consoleDir, 'share.html') : undefined;
    frame = path && existsSync(path) ? readFileSync(path, 'utf8') : null;
  }
  return frame ?? undefined;
}

export function renderSharePage(view: SharedView, consoleDir: string | undefined): string {
  const title = `${escapeHtml(view.session.title)} · Keel`;
  const content = STYLE + renderSharedContent(view);
  const built = consoleFrame(consoleDir);
  if (built && built.includes('<!--share-content-->'))
    // Replacement functions, not strings: a title holding `$&` or `$\`` must stay text, not pull the template in.
    return built.replace('<title>Keel share</title>', () => `<title>${title}</title>`).replace('<!--share-content-->', () => content);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head><body>${content}</body></html>`;
}

export function renderNotShared(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Not shared · Keel</title></head><body><main class="keel-share">${STYLE}<h1>This session is not shared</h1><p>The link is wrong, or its owner stopped sharing the session.</p></main></body></html>`;
}
