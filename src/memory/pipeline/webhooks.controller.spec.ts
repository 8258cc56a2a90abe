import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../../test/support/controller-setup';
import { expectMemoryError } from '../../../test/support/error-bodies';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhooksController } from './webhooks.controller';

const ORG = 'org_spec';
const OUTBOX = { receivers: ['https://hooks.example.test/keel'], maxAttempts: 8, total: 0, deliveries: [] };

/** What the dispatcher was asked: (org, documentId); `doc_broken` fails as a database would. */
const calls: unknown[][] = [];
const dispatcher = {
  outbox: (org: string, documentId?: string) => {
    calls.push([org, documentId]);
    return documentId === 'doc_broken' ? Promise.reject(new Error('SQLITE_BUSY at /data/keel.db')) : Promise.resolve(OUTBOX);
  },
};

describe('WebhooksController at the boundary (GET /v3/webhooks/deliveries)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([WebhooksController], [{ provide: WebhookDispatcher, useValue: dispatcher }], { orgId: ORG });
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('200 with the outbox; the organization and the checked documentId (or none) reach the dispatcher, other parameters dropped', async () => {
    const all = await ctx.http().get('/v3/webhooks/deliveries');
    expect(all.status).toBe(200);
    expect(all.body).toEqual(OUTBOX);
    const one = await ctx.http().get('/v3/webhooks/deliveries').query({ documentId: 'doc_1', page: '2' });
    expect(one.status).toBe(200);
    const longest = await ctx.http().get('/v3/webhooks/deliveries').query({ documentId: 'd'.repeat(255) });
    expect(longest.status).toBe(200);
    expect(calls).toEqual([
      [ORG, undefined],
      [ORG, 'doc_1'],
      [ORG, 'd'.repeat(255)],
    ]);
  });

  it('documentId: one non-empty string of at most 255 characters, else 400 {error, details} naming it', async () => {
    for (const [query, details] of [
      ['documentId=', 'documentId: must be at least 1 character(s) long'],
      [`documentId=${'d'.repeat(256)}`, 'documentId: must be at most 255 characters long'],
      ['documentId=a&documentId=b', 'documentId: must be a string'],
    ]) {
      const res = await ctx.http().get(`/v3/webhooks/deliveries?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expectMemoryError(res.body, { error: 'Invalid request parameters', details });
    }
    expect(calls).toEqual([]);
  });

  it('a NUL in documentId: 400 naming it, before the dispatcher', async () => {
    const res = await ctx.http().get('/v3/webhooks/deliveries?documentId=a%00b');
    expect(res.status).toBe(400);
    expectMemoryError(res.body, { details: /^documentId: must not contain NUL/ });
    expect(calls).toEqual([]);
  });

  it('an unexpected error: 500 {error, details: "ref <request id>"}', async () => {
    const res = await ctx.http().get('/v3/webhooks/deliveries?documentId=doc_broken');
    expect(res.status).toBe(500);
    expectMemoryError(res.body, { error: 'Internal server error', details: `ref ${TEST_REQUEST_ID}` });
  });

  it('without an organization: 401 {error}, the dispatcher not asked', async () => {
    const bare = await controllerSetup([WebhooksController], [{ provide: WebhookDispatcher, useValue: dispatcher }]);
    try {
      const res = await bare.http().get('/v3/webhooks/deliveries');
      expect(res.status).toBe(401);
      expectMemoryError(res.body, { error: 'No organization was resolved for this request', details: null });
      expect(calls).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});
