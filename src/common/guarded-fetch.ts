import { lookup } from 'node:dns';
import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from './private-address';

/** A fetch refused or failed by the guards below; the message says why in words. */
export class GuardedFetchError extends Error {}

interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  allowPrivate: boolean;
}

/** DNS lookup that refuses private answers, so the address checked is the address connected to. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as { address: string; family: number }[];
      const refused = !allowPrivate && list.find((a) => isPrivateAddress(a.address));
      if (refused)
        return callback(
          new GuardedFetchError(
            `Refusing to fetch ${hostname}: it resolves to a private address (${refused.address})`,
          ),
          '',
          0,
        );
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

function getOnce(
  url: URL,
  limits: FetchLimits,
  accept: string,
): Promise<{ response: IncomingMessage; body?: Buffer }> {
  return new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !limits.allowPrivate && isPrivateAddress(host)) {
      return reject(new GuardedFetchError(`Refusing to fetch ${url.host}: private address`));
    }
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: 'GET',
        lookup: guardedLookup(limits.allowPrivate),
        headers: { 'user-agent': 'keel/1', accept },
        timeout: limits.timeoutMs,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          return resolve({ response });
        }
        const parts: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxBytes) {
            request.destroy(new GuardedFetchError(`Fetched content exceeds ${limits.maxBytes} bytes`));
            return;
          }
          parts.push(chunk);
        });
        response.on('end', () => resolve({ response, body: Buffer.concat(parts) }));
        response.on('error', reject);
      },
    );
    const deadline = setTimeout(
      () =>
        request.destroy(
          new GuardedFetchError(`Fetching ${url.href} took longer than ${limits.timeoutMs} ms`),
        ),
      limits.timeoutMs,
    );
    request.on('close', () => clearTimeout(deadline));
    request.on('timeout', () => request.destroy(new GuardedFetchError(`Fetching ${url.href} timed out`)));
    request.on('error', (error) =>
      reject(
        error instanceof GuardedFetchError
          ? error
          : new GuardedFetchError(`Fetching ${url.href} failed: ${error.message}`),
      ),
    );
    request.end();
  });
}

/**
 * GET a URL with size, time and redirect caps and no private addresses (unless `allowPrivate`),
 * every hop checked: for any fetch of a URL a client or an operator named.
 */
export async function guardedGet(
  address: string,
  limits: FetchLimits,
  accept = '*/*',
): Promise<{ url: URL; response: IncomingMessage; body: Buffer }> {
  let url = new URL(address.trim());
  for (let redirects = 0; ; redirects++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new GuardedFetchError(`Unsupported URL scheme ${url.protocol}`);
    const { response, body } = await getOnce(url, limits, accept);
    if (body) return { url, response, body };
    if (redirects >= limits.maxRedirects)
      throw new GuardedFetchError(`Too many redirects (more than ${limits.maxRedirects})`);
    url = new URL(response.headers.location!, url);
  }
}
