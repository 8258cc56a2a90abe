import { IncomingMessage } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { keelHttpAdapter } from '../http-boundary';
import { keepJson } from './serialized-json';

describe('KeelHttpAdapter', () => {
  let server: Server;
  let app: Express;
  /** The prototypes of the request and response the server made, before Express saw them. */
  let seen: { request: object | null; response: object | null; instance: boolean } | undefined;

  beforeAll(async () => {
    const adapter = keelHttpAdapter({ headersTimeoutMs: 10_000, requestTimeoutMs: 10_000 });
    adapter.initHttpServer({});
    app = adapter.getInstance<Express>();
    app.get('/probe', (req, res) => {
      res.json({ ip: req.ip, path: req.path });
    });
    app.post('/kept', (_req, res) => {
      const answer = keepJson({ id: 'ses_1', title: 'é "kept"' });
      // Changed after its JSON was kept (which an owner must not do): the kept bytes are what go.
      answer.title = 'changed';
      adapter.reply(res, answer, 201);
    });
    server = adapter.getHttpServer();
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen = { request: Object.getPrototypeOf(req) as object | null, response: Object.getPrototypeOf(res) as object | null, instance: req instanceof IncomingMessage };
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("makes each request and response with the app's own prototypes, so Express never changes a live object's prototype", async () => {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/probe?x=1`);
    // Express's request and response methods work on them as before.
    expect(await response.json()).toEqual({ ip: '127.0.0.1', path: '/probe' });
    expect(seen).toEqual({ request: app.request, response: app.response, instance: true });
  });

  it("answers a write with a value's kept JSON, its length counted in bytes", async () => {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/kept`, { method: 'POST' });
    const body = await response.text();
    expect(response.status).toBe(201);
    expect(body).toBe(JSON.stringify({ id: 'ses_1', title: 'é "kept"' }));
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});
