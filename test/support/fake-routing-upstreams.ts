import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRouter {
  rule: string;
  service: string;
  entryPoints?: string[];
  tls?: { certResolver?: string; domains?: { main: string; sans?: string[] }[] };
  priority?: number;
  provider?: string;
  middlewares?: string[];
  /** Traefik's status (enabled when unset) and error list. */
  status?: string;
  error?: string[];
}

/**
 * Pangolin (`GET /traefik-config`) and the Traefik API (`GET /api/http/routers`) on loopback,
 * with routers a test edits between syncs, optional Basic auth and a switch to make them fail.
 */
export class FakeRoutingUpstream {
  /** Router name → router, as Pangolin's HTTP provider / Traefik would report it. */
  routers: Record<string, FakeRouter> = {};
  /** What the Traefik API lists at /api/http/services and /api/http/middlewares. */
  services: Record<string, unknown>[] = [];
  middlewares: Record<string, unknown>[] = [];
  failing = false;
  credentials?: { username: string; password: string };
  readonly requests: { path: string; authorization?: string }[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?')[0];
    this.requests.push({ path, authorization: req.headers.authorization });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (this.credentials) {
      const expected = `Basic ${Buffer.from(`${this.credentials.username}:${this.credentials.password}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return send(401, { message: 'unauthorized' });
    }
    if (this.failing) return send(500, { message: 'upstream down' });
    if (path.endsWith('/traefik-config')) return send(200, { http: { routers: this.routers, services: {} } });
    if (path.endsWith('/api/http/routers')) {
      return send(
        200,
        Object.entries(this.routers).map(([name, r]) => ({
          name,
          provider: r.provider ?? name.split('@')[1] ?? 'docker',
          status: 'enabled',
          ...r,
        })),
      );
    }
    if (path.endsWith('/api/http/services')) return send(200, this.services);
    if (path.endsWith('/api/http/middlewares')) return send(200, this.middlewares);
    send(404, { message: 'not found' });
  }
}
export interface ApiAnswer<T = any> {
  status: number;
  body: T;
}

export function routingApi(baseUrl: string) {
  return async function call<T = any>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

/** The routing surface's one error body: `{code, message}`, message naming the problem. */
export function expectRoutingError(answer: ApiAnswer, status: number, message: string | RegExp): void {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: {
      code: status,
      message:
        typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message),
    },
  });
}
