import { NotFoundError } from '../../common/errors';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../../test/support/controller-setup';
import { expectMemoryError } from '../../../test/support/error-bodies';
import { MemoriesService } from '../memories/memories.service';
import { ProfileBody, SearchDocumentsBody, SearchMemoriesBody } from './dto/search.dto';
import { SearchController } from './search.controller';
import { SearchService } from './search.service';

const ORG = 'org_spec';
const EMPTY = { results: [], timing: 0, total: 0 };

/** What the services were asked: (method, org, body); a body keeps its class so the DTO instance can be asserted. */
const calls: [string, string, unknown][] = [];
const search = {
  documentsSearch: (org: string, body: SearchDocumentsBody) => {
    calls.push(['documentsSearch', org, body]);
    if (body.docId === 'missing') return Promise.reject(new NotFoundError('Document not found'));
    if (body.q === 'boom') return Promise.reject(new Error('SQLITE_CORRUPT at /data/keel.db'));
    return Promise.resolve(EMPTY);
  },
  memorySearch: (org: string, body: SearchMemoriesBody) => (calls.push(['memorySearch', org, body]), Promise.resolve({ ...EMPTY, total: 1 })),
};
const memories = {
  // The controller hands the profile a search bound to the organization: the fake runs it when q is sent.
  profile: async (org: string, body: ProfileBody, run: (query: { q: string }) => Promise<unknown>) => {
    calls.push(['profile', org, body]);
    return { profile: { static: [], dynamic: [] }, ...(body.q ? { searchResults: await run({ q: body.q }) } : {}) };
  },
};

/** The fields of a DTO instance the handler received (its class asserted separately). */
const fields = (value: unknown) => ({ ...(value as object) });

describe('SearchController at the boundary (/v3/search, /v4/search, /v4/profile)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup(
      [SearchController],
      [
        { provide: SearchService, useValue: search },
        { provide: MemoriesService, useValue: memories },
      ],
      { orgId: ORG },
    );
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  describe('POST /v3/search', () => {
    it('200 (not 201) with the service answer; the service receives the typed body: text numbers and booleans converted, undeclared fields dropped', async () => {
      const res = await ctx
        .http()
        .post('/v3/search')
        .send({
          q: 'hello',
          containerTag: 'team:a',
          containerTags: ['b'],
          chunkThreshold: '0.5',
          docId: 'doc_1',
          filters: '{"OR":[{"key":"k","value":"v"}]}',
          includeFullDocs: 'false',
          includeSummary: true,
          limit: '7',
          onlyMatchingChunks: 'true',
          rerank: true,
          surprise: 1,
        });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(EMPTY);
      expect(calls).toHaveLength(1);
      const [name, org, body] = calls[0];
      expect([name, org]).toEqual(['documentsSearch', ORG]);
      expect(body).toBeInstanceOf(SearchDocumentsBody);
      expect(fields(body)).toEqual({
        q: 'hello',
        containerTag: 'team:a',
        containerTags: ['b'],
        chunkThreshold: 0.5,
        docId: 'doc_1',
        filters: { OR: [{ key: 'k', value: 'v' }] },
        includeFullDocs: false,
        includeSummary: true,
        limit: 7,
        onlyMatchingChunks: true,
      });
    });

    it('q is required, a non-empty string', async () => {
      for (const [sent, details] of [
        [{}, 'q: is required'],
        [{ q: null }, 'q: is required'],
        [{ q: '' }, 'q: must be at least 1 character(s) long'],
        [{ q: 5 }, 'q: must be a string'],
      ] as const) {
        const res = await ctx.http().post('/v3/search').send(sent);
        expect(res.status).toBe(400);
        expectMemoryError(res.body, { error: 'Invalid request parameters', details });
      }
      expect(calls).toEqual([]);
    });

    it('each field has its rule, reported in declaration order', async () => {
      const res = await ctx
        .http()
        .post('/v3/search')
        .send({
          q: 'x',
          containerTag: 'a b',
          containerTags: 'a',
          chunkThreshold: 2,
          docId: 'd'.repeat(256),
          filters: '{not json',
          includeFullDocs: 'yes',
          includeSummary: 1,
          limit: 101,
          onlyMatchingChunks: 'no',
        });
      expect(res.status).toBe(400);
      expectMemoryError(res.body, {
        details:
          'containerTag: must contain only letters, digits, underscores, hyphens, colons and dots; containerTags: must be an array of strings; ' +
          'chunkThreshold: must be at most 1; docId: must be at most 255 characters long; filters: must be a filter object or its JSON string; ' +
          'includeFullDocs: must be a boolean; includeSummary: must be a boolean; limit: must be at most 100; onlyMatchingChunks: must be a boolean',
      });
      expect(calls).toEqual([]);
    });

    it('range limits: chunkThreshold 0 to 1, limit a whole number from 1 to 100; container tags at most 100 characters, each tag checked', async () => {
      const low = await ctx.http().post('/v3/search').send({ q: 'x', chunkThreshold: -0.1, limit: 0 });
      expectMemoryError(low.body, { details: 'chunkThreshold: must be at least 0; limit: must be at least 1' });
      const fraction = await ctx.http().post('/v3/search').send({ q: 'x', chunkThreshold: 'half', limit: 2.5 });
      expectMemoryError(fraction.body, { details: 'chunkThreshold: must be a number; limit: must be an integer' });
      const tags = await ctx.http().post('/v3/search').send({ q: 'x', containerTag: 't'.repeat(101), containerTags: ['ok', '', 'a/b'] });
      expectMemoryError(tags.body, {
        details:
          'containerTag: must be at most 100 characters long; containerTags.1: must be at least 1 character(s) long; ' +
          'containerTags.2: must contain only letters, digits, underscores, hyphens, colons and dots',
      });
      const edges = await ctx.http().post('/v3/search').send({ q: 'x', chunkThreshold: 0, limit: 100, containerTag: 't'.repeat(100) });
      expect(edges.status).toBe(200);
      expect(fields(calls[0][2])).toEqual({ q: 'x', chunkThreshold: 0, limit: 100, containerTag: 't'.repeat(100) });
    });

    it('a filter is {AND|OR: [...]} of conditions with a key, a value and known filterType and numericOperator', async () => {
      const res = await ctx
        .http()
        .post('/v3/search')
        .send({ q: 'x', filters: { AND: [{ key: '', value: {} }, { key: 'k', value: 'v', filterType: 'regex', numericOperator: '!=' }] } });
      expectMemoryError(res.body, {
        details:
          'filters.AND.0.key: is required; filters.AND.0.value: must be a string; filters.AND.1.filterType: must be one of metadata, numeric, array_contains, string_contains; ' +
          'filters.AND.1.numericOperator: must be one of > < >= <= =',
      });
      const bare = await ctx.http().post('/v3/search').send({ q: 'x', filters: { key: 'k', value: 'v' } });
      expectMemoryError(bare.body, { details: 'filters: must be {AND: [...]} or {OR: [...]}' });
      const deep = await ctx.http().post('/v3/search').send({ q: 'x', filters: { AND: [{ AND: [{ AND: [{ AND: [{ AND: [{ AND: [] }] }] }] }] }] } });
      expectMemoryError(deep.body, { details: 'filters.AND.0.AND.0.AND.0.AND.0.AND.0: nests deeper than 5 levels' });
      expect(calls).toEqual([]);
    });

    it('a body that is not a JSON object: 400 naming the body', async () => {
      const res = await ctx.http().post('/v3/search').send(['q']);
      expect(res.status).toBe(400);
      expectMemoryError(res.body, { details: '(body): the request body must be a JSON object' });
      expect(calls).toEqual([]);
    });

    it('an unknown docId: 404 {error} from the service; an unexpected error: 500 with the request id only', async () => {
      const missing = await ctx.http().post('/v3/search').send({ q: 'x', docId: 'missing' });
      expect(missing.status).toBe(404);
      expectMemoryError(missing.body, { error: 'Document not found', details: null });
      const boom = await ctx.http().post('/v3/search').send({ q: 'boom' });
      expect(boom.status).toBe(500);
      expectMemoryError(boom.body, { error: 'Internal server error', details: `ref ${TEST_REQUEST_ID}` });
    });
  });

  describe('POST /v4/search', () => {
    it('200 with the service answer; the typed body reaches the service (include kept as sent, searchMode checked)', async () => {
      const res = await ctx
        .http()
        .post('/v4/search')
        .send({
          q: 'what',
          containerTag: 'a',
          searchMode: 'hybrid',
          threshold: '0.25',
          limit: 3,
          rerank: 'true',
          rewriteQuery: false,
          aggregate: 'false',
          filters: { AND: [{ key: 'k', value: 1, filterType: 'numeric', numericOperator: '>=' }] },
          include: { documents: true, chunks: false },
          extra: 'dropped',
        });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...EMPTY, total: 1 });
      const [name, org, body] = calls[0];
      expect([name, org]).toEqual(['memorySearch', ORG]);
      expect(body).toBeInstanceOf(SearchMemoriesBody);
      expect(fields(body)).toEqual({
        q: 'what',
        containerTag: 'a',
        searchMode: 'hybrid',
        threshold: 0.25,
        limit: 3,
        rerank: true,
        rewriteQuery: false,
        aggregate: false,
        filters: { AND: [{ key: 'k', value: 1, filterType: 'numeric', numericOperator: '>=' }] },
        include: { documents: true, chunks: false },
      });
    });

    it('each field has its rule, reported in declaration order', async () => {
      const res = await ctx
        .http()
        .post('/v4/search')
        .send({
          containerTag: '',
          containerTags: [7],
          searchMode: 'fuzzy',
          threshold: 1.5,
          limit: -1,
          rerank: 'x',
          rewriteQuery: 0,
          aggregate: [],
          filters: 5,
          include: ['documents'],
        });
      expect(res.status).toBe(400);
      expectMemoryError(res.body, {
        error: 'Invalid request parameters',
        details:
          'q: is required; containerTag: must be at least 1 character(s) long; containerTags.0: must be a string; searchMode: must be one of memories, hybrid, documents; ' +
          'threshold: must be at most 1; limit: must be at least 1; rerank: must be a boolean; rewriteQuery: must be a boolean; aggregate: must be a boolean; ' +
          'filters: must be an object; include: must be an object',
      });
      const low = await ctx.http().post('/v4/search').send({ q: 'x', threshold: -1, limit: 'many' });
      expectMemoryError(low.body, { details: 'threshold: must be at least 0; limit: must be an integer' });
      const nullInclude = await ctx.http().post('/v4/search').send({ q: 'x', include: null });
      expect(nullInclude.status).toBe(200);
      expect(fields(calls[0][2])).toEqual({ q: 'x', include: undefined });
    });
  });

  describe('POST /v4/profile', () => {
    it('200; the typed body reaches MemoriesService.profile, whose search runs SearchService.memorySearch for the same organization', async () => {
      const res = await ctx
        .http()
        .post('/v4/profile')
        .send({ containerTag: 'user_1', q: 'likes', threshold: '0.5', include: ['static', 'buckets'], buckets: ['work', 'a:b-c_d'], filters: { OR: [] } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ profile: { static: [], dynamic: [] }, searchResults: { ...EMPTY, total: 1 } });
      expect(calls.map(([name, org]) => [name, org])).toEqual([
        ['profile', ORG],
        ['memorySearch', ORG],
      ]);
      expect(calls[0][2]).toBeInstanceOf(ProfileBody);
      expect(fields(calls[0][2])).toEqual({ containerTag: 'user_1', q: 'likes', threshold: 0.5, include: ['static', 'buckets'], buckets: ['work', 'a:b-c_d'], filters: { OR: [] } });
      expect(calls[1][2]).toEqual({ q: 'likes' });
    });

    it('containerTag is required; q, threshold, include and buckets have their rules, in declaration order', async () => {
      const res = await ctx
        .http()
        .post('/v4/profile')
        .send({ q: '', threshold: 3, filters: [], include: ['everything'], buckets: ['', 'a b', 'k'.repeat(101), 4] });
      expect(res.status).toBe(400);
      expectMemoryError(res.body, {
        details:
          'containerTag: is required; q: must be at least 1 character(s) long; threshold: must be at most 1; filters: must be an object; ' +
          'include.0: must be one of static, dynamic, buckets; ' +
          // An empty key fails both its length and its pattern (the tag rule reports only the first).
          'buckets.0: must be at least 1 character(s) long; buckets.0: must contain only letters, digits, "_", ":" and "-"; ' +
          'buckets.1: must contain only letters, digits, "_", ":" and "-"; buckets.2: must be at most 100 characters long; buckets.3: must be a string',
      });
      const lists = await ctx.http().post('/v4/profile').send({ containerTag: 'a', include: 'static', buckets: Array.from({ length: 21 }, (_, i) => `b${i}`) });
      expectMemoryError(lists.body, { details: 'include: must be an array of at most 20 items; buckets: must be an array of at most 20 items' });
      const emptyTag = await ctx.http().post('/v4/profile').send({ containerTag: '' });
      expectMemoryError(emptyTag.body, { details: 'containerTag: must be at least 1 character(s) long; containerTag: is required' });
      expect(calls).toEqual([]);
    });
  });

  it('without an organization: 401 {error}, no service called', async () => {
    const bare = await controllerSetup(
      [SearchController],
      [
        { provide: SearchService, useValue: search },
        { provide: MemoriesService, useValue: memories },
      ],
    );
    try {
      for (const path of ['/v3/search', '/v4/search', '/v4/profile']) {
        const res = await bare.http().post(path).send({ q: 'x', containerTag: 'a' });
        expect(res.status).toBe(401);
        expectMemoryError(res.body, { error: 'No organization was resolved for this request', details: null });
      }
      expect(calls).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});
