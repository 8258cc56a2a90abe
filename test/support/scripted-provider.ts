import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** One thing the scripted model does while streaming a reply. */
export type ScriptStep =
  | { text: string }
  | { reasoning: string }
  | { tool: string; args: Record<string, unknown> | string; id?: string }
  | { delayMs: number }
  /** Pauses the stream until the promise settles (to abort or prompt mid-stream). */
  | { until: Promise<unknown> };

export type ScriptedReply =
  | { steps: ScriptStep[]; finish?: 'stop' | 'tool_calls' | 'length'; usage?: { prompt: number; completion: number; cached?: number; reasoning?: number } }
  | { error: { status: number; message?: string; type?: string; headers?: Record<string, string> } };

/** A reply, or a function choosing one from the request body (to answer with ids the request carried). */
export type QueuedReply = ScriptedReply | ((body: any) => ScriptedReply);

export interface RecordedRequest {
  body: any;
  headers: IncomingMessage['headers'];
  /** The request was a title request (answered by `titleReply`, not from the queue). */
  title: boolean;
}

/**
 * A real OpenAI-compatible chat-completions server on 127.0.0.1: every POST to
 * `/v1/chat/completions` takes the next queued reply and streams it as SSE chunks, exactly as the
 * AI SDK's openai-compatible provider expects; a request without `stream: true` gets the same reply
 * as one `chat.completion` JSON body. Title requests (the title agent's system prompt) are answered
 * with `titleReply` so they never consume the script.
 */
export class ScriptedProvider {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: QueuedReply[] = [];
  private server!: Server;
  titleReply = 'Scripted title';
  url = '';

  static async start(): Promise<ScriptedProvider> {
    const provider = new ScriptedProvider();
    provider.server = createServer((req, res) => void provider.handle(req, res));
    await new Promise<void>((resolve) => provider.server.listen(0, '127.0.0.1', resolve));
    provider.url = `http://127.0.0.1:${(provider.server.address() as AddressInfo).port}/v1`;
    return provider;
  }

  /** Queue replies, answered in order. */
  reply(...replies: QueuedReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Requests of the main loop (title requests left out). */
  get prompts(): RecordedRequest[] {
    return this.requests.filter((r) => !r.title);
  }

  pending(): number {
    return this.queue.length;
  }

  /** An `opencode.json` provider block pointing at this server. */
  config(models: string[] = ['scripted-model']): Record<string, unknown> {
    return {
      provider: {
        scripted: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Scripted',
          options: { baseURL: this.url, apiKey: 'test-key' },
          models: Object.fromEntries(models.map((m) => [m, { name: m, tool_call: true, reasoning: true, cost: { input: 1, output: 2 }, limit: { context: 100000, output: 8000 } }])),
        },
      },
      model: `scripted/${models[0]}`,
      small_model: `scripted/${models[0]}`,
    };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const body = JSON.parse(raw);
    const system = (body.messages ?? []).filter((m: any) => m.role === 'system').map((m: any) => String(m.content)).join('\n');
    const title = /title for a conversation|title generator/i.test(system);
    this.requests.push({ body, headers: req.headers, title });
    const queued = title ? undefined : this.queue.shift();
    const reply: ScriptedReply = title
      ? { steps: [{ text: this.titleReply }] }
      : typeof queued === 'function'
        ? queued(body)
        : (queued ?? { error: { status: 500, message: 'scripted provider: no reply queued' } });
    if ('error' in reply) {
      res.writeHead(reply.error.status, { 'content-type': 'application/json', ...reply.error.headers });
      res.end(JSON.stringify({ error: { message: reply.error.message ?? `error ${reply.error.status}`, type: reply.error.type ?? 'server_error', code: null } }));
      return;
    }
    if (body.stream === true) await this.stream(res, body.model, reply);
    else this.complete(res, body.model, reply);
  }

  /** The non-streaming answer: text and tool calls of the reply's steps in one message (delays and pauses do not apply). */
  private complete(res: ServerResponse, model: string, reply: Extract<ScriptedReply, { steps: ScriptStep[] }>): void {
    const text = reply.steps.flatMap((s) => ('text' in s ? [s.text] : [])).join('');
    const reasoning = reply.steps.flatMap((s) => ('reasoning' in s ? [s.reasoning] : [])).join('');
    const toolCalls = reply.steps.flatMap((s, i) =>
      'tool' in s ? [{ id: s.id ?? `call_${i}`, type: 'function', function: { name: s.tool, arguments: typeof s.args === 'string' ? s.args : JSON.stringify(s.args) } }] : [],
    );
    const usage = reply.usage ?? { prompt: 100, completion: 20 };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text, ...(reasoning ? { reasoning_content: reasoning } : {}), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
            finish_reason: reply.finish ?? (toolCalls.length ? 'tool_calls' : 'stop'),
          },
        ],
        usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion },
      }),
    );
  }

  private async stream(res: ServerResponse, model: string, reply: Extract<ScriptedReply, { steps: ScriptStep[] }>): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.socket?.setNoDelay(true);
    const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
    const send = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
    let toolIndex = 0;
    let closed = false;
    res.on('close', () => (closed = true));
    send({ role: 'assistant', content: '' });
    for (const step of reply.steps) {
      if (closed) return;
      if ('text' in step) send({ content: step.text });
      else if ('reasoning' in step) send({ reasoning_content: step.reasoning });
      else if ('tool' in step) {
        const args = typeof step.args === 'string' ? step.args : JSON.stringify(step.args);
        send({ tool_calls: [{ index: toolIndex, id: step.id ?? `call_${toolIndex}_${Math.random().toString(36).slice(2, 8)}`, type: 'function', function: { name: step.tool, arguments: args } }] });
        toolIndex++;
      } else if ('delayMs' in step) await new Promise((r) => setTimeout(r, step.delayMs));
      else await step.until.catch(() => undefined);
    }
    if (closed) return;
    const finish = reply.finish ?? (toolIndex > 0 ? 'tool_calls' : 'stop');
    send({}, finish);
    const usage = reply.usage ?? { prompt: 100, completion: 20 };
    res.write(
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [],
        usage: {
          prompt_tokens: usage.prompt,
          completion_tokens: usage.completion,
          total_tokens: usage.prompt + usage.completion,
          prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
          completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
        },
      })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  }
}
