import { BeforeApplicationShutdown, Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CurrentInstance } from '../common/current-instance.decorator';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { Metrics } from '../observability/metrics.service';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { EventBus, EventPayload, GlobalEnvelope } from './event-bus.service';
import { eventFrame, globalFrame, streamedText } from './event-frames';
import { SseOptions, SseStream } from './sse-stream';

/** A streamed part update's frame is about its text plus the part's other fields. */
const estimateStreamed = (payload: EventPayload): number | undefined => {
  const text = streamedText(payload);
  return text === undefined ? undefined : text.length + 512;
};

@Controller()
export class EventsController implements BeforeApplicationShutdown {
  private readonly streams = new Set<{ close(): void }>();

  constructor(
    private readonly bus: EventBus,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
    metrics: Metrics,
  ) {
    metrics.sample('keel_sse_clients', 'Open event streams (/event and /global/event)', () => this.streams.size);
  }

  /** Every directory's events in `{directory, payload}` envelopes; stays open across disposal. */
  @Get('global/event')
  @Operation('global.event')
  globalEvents(@Req() req: Request, @Res() res: Response): void {
    const stream = this.open<GlobalEnvelope>(req, res, {
      heartbeat: () => ({ payload: { type: 'server.heartbeat', properties: {} } }),
      render: globalFrame,
      estimate: (envelope) => estimateStreamed(envelope.payload),
    });
    stream.send({ payload: { type: 'server.connected', properties: {} } });
    stream.attach(this.bus.all().subscribe((envelope) => stream.send(envelope)));
  }

  /** One directory's events as bare `{type, properties}`; closed when its instance is disposed. */
  @Get('event')
  @Operation('event.subscribe')
  events(@CurrentInstance() instance: Instance, @Req() req: Request, @Res() res: Response): void {
    const stream = this.open<EventPayload>(req, res, {
      heartbeat: () => ({ type: 'server.heartbeat', properties: {} }),
      render: eventFrame,
      estimate: estimateStreamed,
    });
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

  private open<T extends object>(req: Request, res: Response, framing: Pick<SseOptions<T>, 'heartbeat' | 'render' | 'estimate'>): SseStream<T> {
    const stream = new SseStream<T>(req, res, {
      heartbeatMs: this.settings.heartbeatMs,
      maxBufferedBytes: this.settings.sseMaxBufferedBytes,
      ...framing,
    });
    this.streams.add(stream);
    stream.onClose(() => this.streams.delete(stream));
    return stream;
  }
}
