import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Express, Request, Response } from 'express';
import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { Authenticator } from '../common/auth.middleware';
import { DomainError, ValidationError } from '../common/errors';
import { sessionErrorRenderer } from '../common/http-error.filter';
import { logUpgrade } from '../common/request-log';
import { OriginPolicy } from '../common/request-origin';
import type { Instance } from '../projects/instance.service';
import { DirectoryMiddleware } from '../projects/directory.middleware';
import { PtyService } from './pty.service';

const CONNECT_PATH = /^\/pty\/([^/]+)\/connect\/?$/;

type UpgradeLog = ReturnType<typeof logUpgrade>;

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
  private server?: Server;
  private readonly onUpgrade = (raw: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Express's view of the request (as its router would have it): `path` parsed like the router's,
    // `ip` as the trusted proxy reports it.
    const express = this.adapterHost.httpAdapter.getInstance<Express>();
    const req = Object.setPrototypeOf(raw, express.request) as Request;
    const match = CONNECT_PATH.exec(req.path);
    const id = match ? safeDecode(match[1]) : undefined;
    if (!id) {
      // Not ours: another upgrade handler may take it; if there is none, answer like an unknown route.
      if (this.server?.listenerCount('upgrade') === 1) {
        const notFound = { name: 'NotFoundError', data: { message: `Route not found: GET ${req.path}` } };
        this.refuse(socket, logUpgrade(req), 404, notFound);
      }
      return;
    }
    void this.upgrade(req, socket, head, id);
  };

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly directories: DirectoryMiddleware,
    private readonly ptys: PtyService,
    private readonly origins: OriginPolicy,
    private readonly authenticator: Authenticator,
  ) {}

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

  private async upgrade(req: Request, socket: Duplex, head: Buffer, id: string): Promise<void> {
    socket.on('error', () => socket.destroy());
    const log = logUpgrade(req);
    // Before the credential: a page on another site (or a rebound name) never opens a terminal, even
    // with a password it has learnt; browsers always send Origin on a WebSocket handshake.
    const foreign = this.origins.hostRefusal(req) ?? this.origins.crossSiteRefusal(req, true);
    if (foreign !== undefined) {
      this.refuse(socket, log, 403, { name: 'ForbiddenError', data: { message: foreign } });
      return;
    }
    if (!this.authenticator.allowsServerRequest(req)) {
      this.refuse(socket, log, 401, undefined, { 'WWW-Authenticate': 'Basic realm="Secure Area"' });
      return;
    }
    try {
      const instance = await this.instanceOf(req);
      const terminal = this.ptys.terminal(instance.directory, id);
      this.sockets.handleUpgrade(req, socket, head, (ws) => {
        ws.once('close', log.opened());
        terminal.attach(ws);
      });
    } catch (error) {
      if (!(error instanceof DomainError)) {
        this.refuse(socket, log, 500, { name: 'UnknownError', data: { message: 'Unexpected server error' } });
        return;
      }
      const body = sessionErrorRenderer.render(
        error instanceof ValidationError
          ? { status: 400, name: error.errorName, message: error.message, issues: error.issues, input: error.input }
          : { status: error.status, name: error.errorName, message: error.message, data: error.data },
      );
      this.refuse(socket, log, error.status, body);
    }
  }

  /** The directory and Instance exactly as HTTP requests get them (`req.query` is Express's parser). */
  private instanceOf(request: Request): Promise<Instance> {
    return new Promise((resolve, reject) => {
      void this.directories.use(request, undefined as unknown as Response, (error?: unknown) => {
        if (error) reject(error instanceof Error ? error : new Error('directory resolution failed'));
        else if (request.instance) resolve(request.instance);
        else reject(new Error('no instance resolved'));
      });
    });
  }

  /** Answers the upgrade with a plain HTTP response (or drops a socket that cannot take one), and logs the refusal. */
  private refuse(socket: Duplex, log: UpgradeLog, status: number, body?: unknown, headers: Record<string, string> = {}): void {
    log.refused(status);
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
