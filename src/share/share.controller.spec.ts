import { NotFoundError } from '../common/errors';
import { PAGE_CSP } from '../common/security-headers';
import { KEEL_SETTINGS } from '../common/settings';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import { ShareController } from './share.controller';
import { ShareService } from './share.service';
import type { SharedView } from './share.service';

const view = {
  session: { id: 'ses_1', title: 'Fix <b>the</b> build', time: { created: 1, updated: 1 } },
  messages: [],
  subtasks: [],
} as unknown as SharedView;

/** The share service as the controller sees it, recording its calls: `shr_gone` is not (or no longer) shared, `shr_broken` fails. */
const calls: unknown[][] = [];
const lookup = (shareID: string) => {
  if (shareID === 'shr_gone') return Promise.reject(new NotFoundError('This session is not shared'));
  if (shareID === 'shr_broken') return Promise.reject(new Error('SQLITE_CORRUPT at /data/keel.db'));
  return undefined;
};
const shares = {
  view: (shareID: string) => (calls.push(['view', shareID]), lookup(shareID) ?? Promise.resolve(view)),
  sessionOf: (shareID: string) => (calls.push(['sessionOf', shareID]), lookup(shareID) ?? Promise.resolve('ses_1')),
  follow: (shareID: string) => (calls.push(['follow', shareID]), Promise.reject(new Error('the spec never streams'))),
};

describe('ShareController at the boundary (public share page, its data; the event stream only up to its refusal)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup(
      [ShareController],
      [
        { provide: ShareService, useValue: shares },
        { provide: KEEL_SETTINGS, useValue: { heartbeatMs: 60_000, sseMaxBufferedBytes: 1 << 20 } },
      ],
    );
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  describe('GET /share/:shareID (the page)', () => {
    it('200 HTML with the session title escaped, never cached, under the page CSP', async () => {
      const res = await ctx.http().get('/share/shr_1').set('accept', 'text/html');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('Fix &lt;b&gt;the&lt;/b&gt; build');
      expect(res.text).not.toContain('<b>the</b>');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
      expect(calls).toEqual([['view', 'shr_1']]);
    });

    it('not shared, asked by a browser: 404 with an HTML page', async () => {
      const res = await ctx.http().get('/share/shr_gone').set('accept', 'text/html,application/xhtml+xml');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('This session is not shared');
    });

    it('not shared, asked for JSON: 404 NotFoundError in the session dialect', async () => {
      const res = await ctx.http().get('/share/shr_gone').set('accept', 'application/json');
      expect(res.status).toBe(404);
      expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('This session is not shared');
    });

    it('an unexpected failure, even for a browser: 500 UnknownError with the request id, nothing of the error', async () => {
      const res = await ctx.http().get('/share/shr_broken').set('accept', 'text/html');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ name: 'UnknownError', data: { message: 'Unexpected server error', ref: TEST_REQUEST_ID } });
    });

    it('a NUL in the share id: 400 naming shareID, before the service', async () => {
      const res = await ctx.http().get('/share/shr_a%00b');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'shareID');
      expect(calls).toEqual([]);
    });
  });

  describe('GET /share/:shareID/data', () => {
    it('200 JSON with the view, never cached', async () => {
      const res = await ctx.http().get('/share/shr_1/data');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(view);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(calls).toEqual([['view', 'shr_1']]);
    });

    it('not shared: 404 NotFoundError', async () => {
      const res = await ctx.http().get('/share/shr_gone/data');
      expect(res.status).toBe(404);
      expectSessionError(res.body, 'NotFoundError');
    });
  });

  describe("GET /share/:shareID/event (refusals only: the stream itself is the e2e suite's)", () => {
    it('not shared: 404 NotFoundError before any stream starts', async () => {
      const res = await ctx.http().get('/share/shr_gone/event');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expectSessionError(res.body, 'NotFoundError');
      expect(calls).toEqual([['sessionOf', 'shr_gone']]);
    });

    it('a NUL in the share id: 400 naming shareID', async () => {
      const res = await ctx.http().get('/share/%00/event');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'shareID');
      expect(calls).toEqual([]);
    });
  });
});
