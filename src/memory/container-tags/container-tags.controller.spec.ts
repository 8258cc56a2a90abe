import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../../test/support/controller-setup';
import { expectMemoryError } from '../../../test/support/error-bodies';
import { DocumentRepository } from '../documents/document.repository';
import { MemoryEntryRepository } from '../memories/memory-entry.repository';
import { ContainerTagsController } from './container-tags.controller';

const ORG = 'org_spec';

/** The counts each repository answers, per organization; what they were asked. */
const calls: unknown[][] = [];
const counts = (name: string, byOrg: Record<string, [string, number][]>) => ({
  countByTag: (org: string) => {
    calls.push([name, org]);
    if (org === 'org_broken') return Promise.reject(new Error('SQLITE_CORRUPT at /data/keel.db'));
    return Promise.resolve(new Map(byOrg[org] ?? []));
  },
});
const documents = counts('documents', { [ORG]: [['team:b', 2], ['Zeta', 1], ['team:a', 4]] });
const memories = counts('memories', { [ORG]: [['team:a', 7], ['alpha', 3]] });
const providers = [
  { provide: DocumentRepository, useValue: documents },
  { provide: MemoryEntryRepository, useValue: memories },
];

describe('ContainerTagsController at the boundary (GET /v3/container-tags)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([ContainerTagsController], providers, { orgId: ORG });
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('200: the tags of documents and memories of the organization merged, sorted by code point, a count missing on one side 0', async () => {
    const res = await ctx.http().get('/v3/container-tags');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      containerTags: [
        { containerTag: 'Zeta', documents: 1, memories: 0 },
        { containerTag: 'alpha', documents: 0, memories: 3 },
        { containerTag: 'team:a', documents: 4, memories: 7 },
        { containerTag: 'team:b', documents: 2, memories: 0 },
      ],
    });
    expect(calls).toEqual(expect.arrayContaining([['documents', ORG], ['memories', ORG]]));
    expect(calls).toHaveLength(2);
  });

  it('an organization without data: 200 with an empty list', async () => {
    const empty = await controllerSetup([ContainerTagsController], providers, { orgId: 'org_empty' });
    try {
      const res = await empty.http().get('/v3/container-tags');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ containerTags: [] });
    } finally {
      await empty.close();
    }
  });

  it('an unexpected error: 500 {error, details: "ref <request id>"}', async () => {
    const broken = await controllerSetup([ContainerTagsController], providers, { orgId: 'org_broken' });
    try {
      const res = await broken.http().get('/v3/container-tags');
      expect(res.status).toBe(500);
      expectMemoryError(res.body, { error: 'Internal server error', details: `ref ${TEST_REQUEST_ID}` });
    } finally {
      await broken.close();
    }
  });

  it('without an organization: 401 {error}, no repository asked', async () => {
    const bare = await controllerSetup([ContainerTagsController], providers);
    try {
      const res = await bare.http().get('/v3/container-tags');
      expect(res.status).toBe(401);
      expectMemoryError(res.body, { error: 'No organization was resolved for this request', details: null });
      expect(calls).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});
