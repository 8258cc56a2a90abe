import { controllerSetup, ControllerContext } from '../../../test/support/controller-setup';
import { expectMemoryError } from '../../../test/support/error-bodies';
import { SearchController } from '../search/search.controller';
import { SearchService } from '../search/search.service';
import { OrganizationSettingsService } from '../settings/organization-settings.service';
import { SettingsController } from '../settings/settings.controller';
import { MemoriesController } from './memories.controller';
import { MemoriesService } from './memories.service';

const ORG = 'org_spec';

/** What the services were asked: (method, …arguments), the bodies as the pipe handed them over. */
const calls: unknown[][] = [];
const record =
  (name: string, answer: unknown = {}) =>
  (...args: unknown[]) => (calls.push([name, ...args.map((a) => (a && typeof a === 'object' ? { ...a, class: a.constructor.name } : a))]), Promise.resolve(answer));
const memories = { create: record('create'), list: record('list'), update: record('update'), forget: record('forget'), restore: record('restore'), profile: record('profile') };
const search = { documentsSearch: record('documentsSearch'), memorySearch: record('memorySearch') };
const settings = { get: record('get'), update: record('update') };

describe('memory requests at the boundary (MemoryBody and the DTOs)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup(
      [MemoriesController, SearchController, SettingsController],
      [
        { provide: MemoriesService, useValue: memories },
        { provide: SearchService, useValue: search },
        { provide: OrganizationSettingsService, useValue: settings },
      ],
      { orgId: ORG },
    );
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('a memory write names its memory by id or content: the rule across the two comes after every field', async () => {
    const res = await ctx.http().patch('/v4/memories').send({ containerTag: 'a b', newContent: '' });
    expect(res.status).toBe(400);
    expectMemoryError(res.body, {
      details:
        'newContent: must be at least 1 character(s) long; containerTag: must contain only letters, digits, underscores, hyphens, colons and dots; ' +
        'id: id or content is required',
    });
    const forget = await ctx.http().delete('/v4/memories').send({ reason: 5 });
    expectMemoryError(forget.body, { details: 'reason: must be a string; containerTag: is required; id: id or content is required' });
    expect(calls).toEqual([]);
  });

  it('a new version: forgetAfter is a date or null (which clears it), forgetReason a string or null (which keeps it)', async () => {
    const bad = await ctx.http().patch('/v4/memories').send({ containerTag: 'a', id: 'm1', newContent: 'x', forgetAfter: 'never', forgetReason: 7 });
    expectMemoryError(bad.body, { details: 'forgetAfter: must be an ISO-8601 date; forgetReason: must be a string' });
    expect(calls).toEqual([]);
    const cleared = await ctx.http().patch('/v4/memories').send({ containerTag: 'a', id: 'm1', newContent: 'x', forgetAfter: null, forgetReason: null });
    expect(cleared.status).toBe(200);
    const dated = await ctx.http().patch('/v4/memories').send({ containerTag: 'a', id: 'm1', newContent: 'x', forgetAfter: '2030-01-01T00:00:00Z' });
    expect(dated.status).toBe(200);
    expect(calls.map(([, , body]) => body)).toEqual([
      { containerTag: 'a', id: 'm1', newContent: 'x', forgetAfter: null, class: 'UpdateMemoryBody' },
      { containerTag: 'a', id: 'm1', newContent: 'x', forgetAfter: '2030-01-01T00:00:00Z', class: 'UpdateMemoryBody' },
    ]);
  });

  it('a memory list needs a tag from containerTag or containerTags; numbers sent as text arrive as numbers', async () => {
    const none = await ctx.http().post('/v4/memories/list').send({ containerTags: [] });
    expectMemoryError(none.body, { details: 'containerTags: is required' });
    const ok = await ctx.http().post('/v4/memories/list').send({ containerTag: 'a', limit: '5', filters: '{"AND":[]}' });
    expect(ok.status).toBe(200);
    expect(calls).toEqual([['list', ORG, { containerTag: 'a', limit: 5, filters: { AND: [] }, class: 'ListMemoriesBody' }]]);
  });

  it('new memories are checked one by one under their index', async () => {
    const res = await ctx.http().post('/v4/memories').send({ containerTag: 't', memories: [{ content: '' }, 5, { content: 'x', isStatic: 'maybe', forgetAfter: 'never' }] });
    expectMemoryError(res.body, {
      details: 'memories.0.content: must be at least 1 character(s) long; memories.1.content: is required; memories.2.forgetAfter: must be an ISO-8601 date; memories.2.isStatic: must be a boolean',
    });
  });

  it('search: q first, the filter parsed; the profile needs a container tag', async () => {
    const res = await ctx.http().post('/v4/search').send({ filters: { AND: [{ key: 1 }] }, limit: 0 });
    expectMemoryError(res.body, { details: 'q: is required; limit: must be at least 1; filters.AND.0.key: is required; filters.AND.0.value: must be a string' });
    const profile = await ctx.http().post('/v4/profile').send({ include: ['static', 'all'] });
    expectMemoryError(profile.body, { details: 'containerTag: is required; include.1: must be one of static, dynamic, buckets' });
    const ok = await ctx.http().post('/v3/search').send({ q: 'hello', includeSummary: 'true' });
    expect(ok.status).toBe(200);
    expect(calls).toEqual([['documentsSearch', ORG, { q: 'hello', includeSummary: true, class: 'SearchDocumentsBody' }]]);
  });

  it('settings: checked in the order sent, an unknown one where it was sent; -1 resets chunkSize', async () => {
    const res = await ctx.http().patch('/v3/settings').send({ shouldLLMFilter: 'yes', nope: 1, chunkSize: 50 });
    expectMemoryError(res.body, { details: /^shouldLLMFilter: must be a boolean; nope: is not a setting \(settings are chunkSize, .*\); chunkSize: must be -1 \(the default\) or between 100 and 20000$/ });
    const ok = await ctx.http().patch('/v3/settings').send({ filterPrompt: null, chunkSize: -1 });
    expect(ok.status).toBe(200);
    expect(calls).toEqual([['update', ORG, { filterPrompt: null, chunkSize: null, class: 'UpdateSettingsBody' }]]);
  });
});
