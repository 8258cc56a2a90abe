import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { parse } from 'node-html-parser';
import { isPrivateAddress } from '../../common/private-address';
import { defineTool, ToolError } from '../tool';

const WEBFETCH_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_TIMEOUT_S = 30;
const MAX_TIMEOUT_S = 120;
const MAX_REDIRECTS = 5;

/** Refuses URLs whose host is, or resolves to, a loopback, private or link-local address. */
async function assertPublic(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new ToolError(`Cannot resolve ${host}`);
  if (addresses.some(isPrivateAddress)) {
    throw new ToolError(`Refusing to fetch ${url.origin}: it is a loopback or private address (set KEEL_ALLOW_PRIVATE_FETCH=true to allow)`);
  }
}

async function readCapped(response: Response): Promise<string> {
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > WEBFETCH_MAX_BYTES) {
    // Unread, the body would hold the connection open until garbage collection.
    await response.body?.cancel().catch(() => undefined);
    throw new ToolError(`Response too large (exceeds ${WEBFETCH_MAX_BYTES / 1024 / 1024} MB limit)`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.length;
    if (total > WEBFETCH_MAX_BYTES) throw new ToolError(`Response too large (exceeds ${WEBFETCH_MAX_BYTES / 1024 / 1024} MB limit)`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Text for `replaceWith`, which parses strings as HTML: the page's own text must stay text. */
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Visible text of an HTML page, one block per line; `markdown` keeps headings, links and list items. */
function htmlToText(html: string, markdown: boolean): string {
  // The parser keeps a doctype as text.
  const root = parse(html.replace(/<!doctype[^>]*>/gi, ''));
  root.querySelectorAll('script, style, noscript, iframe, object, embed, head').forEach((n) => n.remove());
  if (markdown) {
    // Block elements, not text: structuredText folds newlines inside text into spaces.
    for (const level of [1, 2, 3, 4, 5, 6]) root.querySelectorAll(`h${level}`).forEach((h) => h.replaceWith(`<p>${'#'.repeat(level)} ${escapeHtml(h.text.trim())}</p>`));
    root.querySelectorAll('a').forEach((a) => a.replaceWith(escapeHtml(`[${a.text.trim()}](${a.getAttribute('href') ?? ''})`)));
    root.querySelectorAll('li').forEach((li) => li.replaceWith(`<p>- ${escapeHtml(li.text.trim())}</p>`));
  }
  return root.structuredText
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join('\n');
}

export function webfetchTool(options: { allowPrivate: boolean }) {
  return defineTool({
    id: 'webfetch',
    description:
      'Fetches content from an http(s) URL and returns it as text, markdown or raw html (`format`). Responses above 5 MB are refused; `timeout` is in seconds (default 30, at most 120). Loopback and private network addresses are refused.',
    parameters: (z) => z.object({
      url: z.string().describe('The URL to fetch content from'),
      format: z.enum(['text', 'markdown', 'html']).describe('The format to return the content in (text, markdown, or html)'),
      timeout: z.number().positive().optional().describe('Optional timeout in seconds (max 120)'),
    }),
    async execute(args, ctx) {
      if (!URL.canParse(args.url)) throw new ToolError(`Invalid URL: ${args.url}`);
      let url = new URL(args.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolError('URL must start with http:// or https://');
      await ctx.permit({ type: 'webfetch', subjects: [url.href], title: `Fetch ${url.href}`, metadata: { url: url.href, format: args.format } });
      const timeout = AbortSignal.timeout(Math.min(args.timeout ?? DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S) * 1000);
      const signal = AbortSignal.any([timeout, ctx.abort]);
      let response: Response | undefined;
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        if (!options.allowPrivate) await assertPublic(url);
        response = await fetch(url, { signal, redirect: 'manual', headers: { Accept: 'text/html,text/plain,text/markdown;q=0.9,*/*;q=0.8' } }).catch((error: Error) => {
          throw new ToolError(timeout.aborted ? 'Request timed out' : `Request failed: ${error.message}`);
        });
        const location = response.headers.get('location');
        if (response.status < 300 || response.status >= 400 || !location) break;
        url = new URL(location, url);
        response = undefined;
      }
      if (!response) throw new ToolError('Too many redirects');
      if (!response.ok) throw new ToolError(`Request failed with status code: ${response.status}`);
      // The time cap covers the body too: a server that stalls mid-body times out like one that never answers.
      const body = await readCapped(response).catch((error: unknown) => {
        if (error instanceof ToolError) throw error;
        throw new ToolError(timeout.aborted ? 'Request timed out' : `Request failed: ${(error as Error).message}`);
      });
      const type = response.headers.get('content-type') ?? '';
      const isHtml = type.includes('html');
      const output = args.format === 'html' || !isHtml ? body : htmlToText(body, args.format === 'markdown');
      return { title: `${url.href} (${type})`, output, metadata: { status: response.status, contentType: type } };
    },
  });
}
