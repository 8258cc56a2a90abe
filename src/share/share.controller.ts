import { BeforeApplicationShutdown, Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { consoleDirectory } from '../common/console-static';
import { NotFoundError } from '../common/errors';
import { PAGE_CSP } from '../common/security-headers';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import type { EventPayload } from '../events/event-bus.service';
import { eventFrame } from '../events/event-frames';
import { SseStream } from '../events/sse-stream';
import { renderNotShared, renderSharePage } from './share-page';
import { ShareService, SharedView } from './share.service';

const SHARED_SESSION_SCHEMA = {
  type: 'object',
  required: ['session', 'messages'],
  properties: {
    session: { $ref: '#/components/schemas/Session' },
    messages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['info', 'parts'],
        properties: { info: { $ref: '#/components/schemas/Message' }, parts: { type: 'array', items: { $ref: '#/components/schemas/Part' } } },
      },
    },
  },
};
const SHARED_VIEW_SCHEMA = {
  ...SHARED_SESSION_SCHEMA,
  required: ['session', 'messages', 'subtasks'],
  properties: { ...SHARED_SESSION_SCHEMA.properties, subtasks: { type: 'array', items: SHARED_SESSION_SCHEMA } },
};

/**
 * The public share pages (`/share/<shareID>`, its `/data` and `/event`): the only routes reached
 * without credentials (see Authenticator). Read-only, scoped to the shared session.
 */
@ApiTags('share')
@Controller('share')
export class ShareController implements BeforeApplicationShutdown {
  private readonly streams = new Set<SseStream<EventPayload>>();
  private readonly consoleDir = consoleDirectory();

  constructor(
    private readonly shares: ShareService,
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
  ) {}

  /** The page: server-rendered conversation, then the console's live renderer when its script runs. */
  @Get(':shareID')
  @ApiOperation({ summary: 'Share page (public, HTML)', security: [] })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The shared session rendered as HTML', schema: { type: 'string' } })
  @ApiNotFoundResponse({ description: 'Not shared (unknown id or revoked): an HTML page for a browser (Accept prefers text/html), else the JSON NotFoundError' })
  async page(@Param('shareID') shareID: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    publicHeaders(res);
    let view: SharedView;
    try {
      view = await this.shares.view(shareID);
    } catch (error) {
      if (!(error instanceof NotFoundError) || req.accepts(['json', 'html']) !== 'html') throw error;
      res.status(404).type('html').send(renderNotShared());
      return;
    }
    res.type('html').send(renderSharePage(view, this.consoleDir));
  }

  /** What the live page renders: the session, its messages and its subtasks'. */
  @Get(':shareID/data')
  @ApiOperation({ summary: 'Shared session data (public)', security: [] })
  @ApiOkResponse({ description: 'The shared session, its messages and its subtasks', schema: SHARED_VIEW_SCHEMA })
  @ApiNotFoundResponse({ description: 'Not shared (unknown id or revoked)' })
  data(@Param('shareID') shareID: string, @Res({ passthrough: true }) res: Response): Promise<SharedView> {
    publicHeaders(res);
    return this.shares.view(shareID);
  }

  /** The share's events (data-only SSE); ends with `share.revoked` when the session stops being shared. */
  @Get(':shareID/event')
  @ApiOperation({ summary: 'Shared session events (public, data-only SSE)', security: [] })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'Message and session events of the shared sessions; `share.revoked` then end of stream on unshare', schema: { type: 'string' } })
  @ApiNotFoundResponse({ description: 'Not shared (unknown id or revoked)' })
  async events(@Param('shareID') shareID: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.shares.sessionOf(shareID);
    const stream = new SseStream<EventPayload>(req, res, {
      heartbeatMs: this.settings.heartbeatMs,
      maxBufferedBytes: this.settings.sseMaxBufferedBytes,
      heartbeat: () => ({ type: 'server.heartbeat', properties: {} }),
      render: eventFrame,
      estimate: () => undefined,
    });
    this.streams.add(stream);
    stream.onClose(() => this.streams.delete(stream));
    stream.send({ type: 'server.connected', properties: {} });
    stream.attach(
      await this.shares.follow(
        shareID,
        (payload) => stream.send(payload),
        () => stream.close(),
      ),
    );
  }

  beforeApplicationShutdown(): void {
    for (const stream of this.streams) stream.close();
  }
}

/** A public page: never cached by shared caches, and the console's policy (see securityHeaders, which also sets the others). */
function publicHeaders(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', PAGE_CSP);
}
