import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { KEEL_SETTINGS } from './settings';
import type { KeelSettings } from './settings';

/**
 * Graceful HTTP shutdown: idle keep-alive connections close at once, in-flight requests get
 * the grace period, then whatever is still open is closed so the process can exit.
 * (Event streams and prompts are ended earlier by their own shutdown hooks.)
 */
@Injectable()
export class HttpShutdown implements BeforeApplicationShutdown {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
  ) {}

  beforeApplicationShutdown(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server?.listening) return;
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), this.settings.shutdownGraceMs).unref();
  }
}
