import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { Authenticator } from '../common/auth.middleware';
import { DomainError, ValidationError } from '../common/errors';
import { sessionErrorRenderer } from '../common/http-error.filter';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import type { Instance } from '../projects/instance.service';
import { DirectoryMiddleware } from '../projects/directory.middleware';
import { PtyService } from './pty.service';

const CONNECT_PATH = /^\/pty\/([^/]+)\/connect\/?$/;

/** A path segment, or undefined when its %-encoding is malformed (an unknown route, not a crash). */
function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * `GET /pty/{ptyID}/connect` with `Upgrade: websocket`, on the same HTTP server as the API. The
 * request passes the same checks as HTTP before the upgrade: server password (header or
 * `?auth_token=`), directory, and an existing terminal; a refusal is a plain HTTP response.
 */
@Injectable()
export class PtyConnectGateway implements OnApplicationBootstrap, BeforeApplicationShutdown {
  // A paste is one frame; 16 MiB is far beyond any paste and bounds what one frame may cost.
  private readonly sockets = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  private readonly authenticator: Authenticator;
  private server?: Server;
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://keel');
    const match = CONNECT_PATH.exec(url.pathname);
    const id = match ? safeDecode(match[1]) : undefined;
    if (!id) {
      // Not ours: another upgrade handler may take it; if there is none, answer like an unknown route.
      if (this.server?.listenerCount('upgrade') === 1) {
        this.refuse(socket, 404, { name: 'NotFoundError', data: { message: `Route not found: GET ${url.pathname}` } });
      }
      return;
    }
    void this.upgrade(req, socket, head, url, id);
  };

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly directories: DirectoryMiddleware,
    private readonly ptys: PtyService,
    @Inject(KEEL_SETTINGS) settings: KeelSettings,
  ) {
    this.authenticator = new Authenticator(settings);
  }

  onApplicationBootstrap(): void {
    this.server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    this.server.on('upgrade', this.onUpgrade);
  }

  beforeApplicationShutdown(): void {
    this.server?.off('upgrade', this.onUpgrade);
    // Upgraded sockets would hold the HTTP server's close open.
    for (const client of this.sockets.clients) client.terminate();
    this.sockets.close();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, id: string): Promise<void> {
    socket.on('error', () => socket.destroy());
    if (!this.authenticator.allowsServer(req.headers.authorization, url.searchParams.get('auth_token') ?? undefined)) {
      this.refuse(socket, 401, undefined, { 'WWW-Authenticate': 'Basic realm="Secure Area"' });
      return;
    }
    try {
      const instance = await this.instanceOf(req, url);
      const terminal = this.ptys.terminal(instance.directory, id);
      this.sockets.handleUpgrade(req, socket, head, (ws) => terminal.attach(ws));
    } catch (error) {
      if (!(error instanceof DomainError)) {
        this.refuse(socket, 500, { name: 'UnknownError', data: { message: 'Unexpected server error' } });
        return;
      }
      const body = sessionErrorRenderer.render(
        error instanceof ValidationError
          ? { status: 400, name: error.errorName, message: error.message, issues: error.issues, input: error.input }
          : { status: error.status, name: error.errorName, message: error.message, data: error.data },
      );
      this.refuse(socket, error.status, body);
    }
  }

  /** The directory and Instance exactly as HTTP requests get them. */
  private instanceOf(req: IncomingMessage, url: URL): Promise<Instance> {
    const request = Object.assign(req, { query: Object.fromEntries(url.searchParams) }) as unknown as Request;
    return new Promise((resolve, reject) => {
      void this.directories.use(request, undefined as unknown as Response, (error?: unknown) => {
        if (error) reject(error instanceof Error ? error : new Error('directory resolution failed'));
        else if (request.instance) resolve(request.instance);
        else reject(new Error('no instance resolved'));
      });
    });
  }

  private refuse(socket: Duplex, status: number, body?: unknown, headers: Record<string, string> = {}): void {
    if (!socket.writable) return void socket.destroy();
    const payload = body === undefined ? '' : JSON.stringify(body);
    const lines = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'Connection: close',
      ...(body === undefined ? [] : ['Content-Type: application/json']),
      `Content-Length: ${Buffer.byteLength(payload)}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.end(`${lines.join('\r\n')}\r\n\r\n${payload}`);
  }
}
