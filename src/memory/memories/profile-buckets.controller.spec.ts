import { controllerSetup, ControllerContext } from '../../../test/support/controller-setup';
import { expectMemoryError } from '../../../test/support/error-bodies';
import { MemoriesService } from './memories.service';
import { ProfileBucketsController } from './profile-buckets.controller';

const ORG = 'org_spec';
const BUCKETS = { buckets: [{ key: 'preferences', description: 'What the user likes' }] };

let asked = 0;
const memories = { buckets: () => (asked++, BUCKETS) };

describe('ProfileBucketsController at the boundary (POST /v4/profile/buckets)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([ProfileBucketsController], [{ provide: MemoriesService, useValue: memories }], { orgId: ORG });
  });
  afterAll(() => ctx.close());
  beforeEach(() => (asked = 0));

  it('200 (not 201) with the buckets, once the body is checked', async () => {
    const res = await ctx.http().post('/v4/profile/buckets').send({ containerTag: 'user_1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(BUCKETS);
    expect(asked).toBe(1);
  });

  it('containerTag is required and a tag: 400 {error, details} naming it, the service not asked', async () => {
    for (const [sent, details] of [
      [{}, 'containerTag: is required'],
      [{ containerTag: null }, 'containerTag: is required'],
      [{ containerTag: 5 }, 'containerTag: must be a string; containerTag: is required'],
      [{ containerTag: 'a b' }, 'containerTag: must contain only letters, digits, underscores, hyphens, colons and dots'],
      [{ containerTag: 't'.repeat(101) }, 'containerTag: must be at most 100 characters long'],
    ] as const) {
      const res = await ctx.http().post('/v4/profile/buckets').send(sent);
      expect(res.status).toBe(400);
      expectMemoryError(res.body, { error: 'Invalid request parameters', details });
    }
    const notObject = await ctx.http().post('/v4/profile/buckets').send(['user_1']);
    expect(notObject.status).toBe(400);
    expectMemoryError(notObject.body, { details: '(body): the request body must be a JSON object' });
    expect(asked).toBe(0);
  });

  it('a form body: 415 {error}, the service not asked', async () => {
    const res = await ctx.http().post('/v4/profile/buckets').type('form').send('containerTag=user_1');
    expect(res.status).toBe(415);
    expectMemoryError(res.body, { error: /must be application\/json/, details: null });
    expect(asked).toBe(0);
  });

  it('without an organization: 401 {error}, the service not asked', async () => {
    const bare = await controllerSetup([ProfileBucketsController], [{ provide: MemoriesService, useValue: memories }]);
    try {
      const res = await bare.http().post('/v4/profile/buckets').send({ containerTag: 'user_1' });
      expect(res.status).toBe(401);
      expectMemoryError(res.body, { error: 'No organization was resolved for this request', details: null });
      expect(asked).toBe(0);
    } finally {
      await bare.close();
    }
  });
});
