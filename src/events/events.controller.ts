import { BeforeApplicationShutdown, Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CurrentInstance } from '../common/current-instance.decorator';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { EventBus } from './event-bus.service';
import { SseStream } from './sse-stream';

@Controller()
export class EventsController implements BeforeApplicationShutdown {
  private readonly streams = new Set<SseStream>();

  constructor(
    private readonly bus: EventBus,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
  ) {}

  /** Every directory's events in `{directory, payload}` envelopes; stays open across disposal. */
  @Get('global/event')
  @Operation('global.event')
  globalEvents(@Req() req: Request, @Res() res: Response): void {
    const stream = this.open(req, res, () => ({ payload: { type: 'server.heartbeat', properties: {} } }));
    stream.send({ payload: { type: 'server.connected', properties: {} } });
    stream.attach(this.bus.all().subscribe((envelope) => stream.send(envelope)));
  }

  /** One directory's events as bare `{type, properties}`; closed when its instance is disposed. */
  @Get('event')
  @Operation('event.subscribe')
  events(@CurrentInstance() instance: Instance, @Req() req: Request, @Res() res: Response): void {
    const stream = this.open(req, res, () => ({ type: 'server.heartbeat', properties: {} }));
    stream.send({ type: 'server.connected', properties: {} });
    stream.attach(
      this.bus.forDirectory(instance.directory).subscribe((payload) => {
        stream.send(payload);
        if (payload.type === 'server.instance.disposed') stream.close();
      }),
    );
  }

  /** Graceful shutdown: end every stream so the HTTP server can close. */
  beforeApplicationShutdown(): void {
    for (const stream of this.streams) stream.close();
  }

  private open(req: Request, res: Response, heartbeat: () => unknown): SseStream {
    const stream = new SseStream(req, res, {
      heartbeatMs: this.settings.heartbeatMs,
      maxBufferedBytes: this.settings.sseMaxBufferedBytes,
      heartbeat,
    });
    this.streams.add(stream);
    stream.onClose(() => this.streams.delete(stream));
    return stream;
  }
}
