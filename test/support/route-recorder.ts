import { createServer, request as httpRequest, Server } from 'node:http';
import { connect, AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

export interface RecordedCall {
  method: string;
  /** Path and query as the client sent them. */
  url: string;
  /** The request body (up to 64 KB). */
  requestBody: string;
  status: number;
  /** The response body, decompressed (event streams: what arrived before the client left, up to 1 MB). */
  body: string;
  contentType: string;
  /** Why the request could not be forwarded (answered 502). */
  error?: string;
}

/**
 * A loopback HTTP proxy in front of a server that records every request a client makes and the
 * answer it got, so a test can tell which routes a real client called (the opencode TUIs) and
 * replay them against another server. Streams (SSE) and WebSocket upgrades pass through unbuffered.
 */
export class RouteRecorder {
  readonly calls: RecordedCall[] = [];
  url = '';
  private server!: Server;

  static async start(target: string): Promise<RouteRecorder> {
    const recorder = new RouteRecorder();
    const upstream = new URL(target);
    recorder.server = createServer((req, res) => {
      const call: RecordedCall = { method: req.method ?? 'GET', url: req.url ?? '/', requestBody: '', status: 0, body: '', contentType: '' };
      req.on('data', (chunk: Buffer) => {
        if (call.requestBody.length < 65_536) call.requestBody += chunk.toString();
      });
      recorder.calls.push(call);
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
        (answer) => {
          call.status = answer.statusCode ?? 0;
          call.contentType = String(answer.headers['content-type'] ?? '');
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          const chunks: Buffer[] = [];
          let size = 0;
          const decode = () => {
            const raw = Buffer.concat(chunks);
            const encoding = String(answer.headers['content-encoding'] ?? '');
            try {
              call.body = (encoding === 'gzip' ? gunzipSync(raw) : encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'deflate' ? inflateSync(raw) : raw).toString();
            } catch {
              call.body = raw.toString(); // a stream cut short
            }
          };
          answer.on('data', (chunk: Buffer) => {
            if (size < 1_048_576) {
              chunks.push(chunk);
              size += chunk.length;
            }
            res.write(chunk);
          });
          answer.on('end', () => {
            decode();
            res.end();
          });
          res.on('close', decode);
          answer.on('error', () => res.destroy());
        },
      );
      forward.on('error', (error) => {
        call.error ??= error.message;
        call.status = 502;
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      res.on('close', () => forward.destroy());
      req.pipe(forward);
    });
    recorder.server.on('upgrade', (req, socket, head) => {
      recorder.calls.push({ method: req.method ?? 'GET', url: req.url ?? '/', requestBody: '', status: 101, body: '', contentType: 'websocket' });
      const target = connect(Number(upstream.port), upstream.hostname, () => {
        const lines = [`${req.method} ${req.url} HTTP/1.1`, ...Object.entries(req.headers).map(([k, v]) => `${k}: ${k === 'host' ? upstream.host : String(v)}`)];
        target.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length) target.write(head);
        target.pipe(socket).pipe(target);
      });
      target.on('error', () => socket.destroy());
      socket.on('error', () => target.destroy());
    });
    await new Promise<void>((resolve) => recorder.server.listen(0, '127.0.0.1', resolve));
    recorder.url = `http://127.0.0.1:${(recorder.server.address() as AddressInfo).port}`;
    return recorder;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
