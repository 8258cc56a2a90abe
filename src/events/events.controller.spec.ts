import type { Instance } from '../projects/instance.service';
import { KEEL_SETTINGS } from '../common/settings';
import { Metrics } from '../observability/metrics.service';
import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import { EventBus } from './event-bus.service';
import { EventsController } from './events.controller';

const instance = { directory: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;

/**
 * Only the refusals: each is answered before a stream opens, so the bus must never be subscribed.
 * The streams themselves (framing, heartbeats, disposal) are the e2e suites'.
 */
const subscriptions: unknown[][] = [];
const never = { subscribe: () => ({ unsubscribe: () => undefined }) };
const bus = {
  all: () => (subscriptions.push(['all']), never),
  forDirectory: (directory: string) => (subscriptions.push(['forDirectory', directory]), never),
};

describe('EventsController at the boundary (event.subscribe, global.event: bad input only)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup(
      [EventsController],
      [
        { provide: EventBus, useValue: bus },
        { provide: KEEL_SETTINGS, useValue: { heartbeatMs: 60_000, sseMaxBufferedBytes: 1 << 20 } },
        { provide: Metrics, useValue: { sample: () => undefined } },
      ],
      { instance },
    );
  });
  afterAll(() => ctx.close());
  beforeEach(() => (subscriptions.length = 0));

  describe('GET /event', () => {
    it('a directory sent twice (a list, not a string): 400 naming directory, no stream', async () => {
      const res = await ctx.http().get('/event?directory=/a&directory=/b');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expectSessionBadRequest(res.body, 'directory');
      expect(subscriptions).toEqual([]);
    });

    it('a NUL in the directory: 400 naming directory, no stream', async () => {
      const res = await ctx.http().get('/event?directory=/work%00/x');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'directory');
      expect(subscriptions).toEqual([]);
    });

    it('a text/plain body: 415 UnsupportedMediaTypeError, never read, no stream', async () => {
      const res = await ctx.http().get('/event').set('content-type', 'text/plain').send('hello');
      expect(res.status).toBe(415);
      expectSessionError(res.body, 'UnsupportedMediaTypeError');
      expect(subscriptions).toEqual([]);
    });
  });

  describe('GET /global/event', () => {
    it('a NUL in any query value: 400 naming that parameter, no stream', async () => {
      const res = await ctx.http().get('/global/event?since=%00');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'since');
      expect(subscriptions).toEqual([]);
    });

    it('a text/plain body: 415 UnsupportedMediaTypeError, no stream', async () => {
      const res = await ctx.http().get('/global/event').set('content-type', 'text/plain').send('hello');
      expect(res.status).toBe(415);
      expectSessionError(res.body, 'UnsupportedMediaTypeError');
      expect(subscriptions).toEqual([]);
    });

    it('malformed JSON in a body: 400 in the session dialect, no stream', async () => {
      const res = await ctx.http().get('/global/event').set('content-type', 'application/json').send('{"a":');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body);
      expect(subscriptions).toEqual([]);
    });
  });
});
