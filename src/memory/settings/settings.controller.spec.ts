import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../../test/support/controller-setup';
import { expectMemoryError } from '../../../test/support/error-bodies';
import { UpdateSettingsBody } from './dto/settings.dto';
import { OrganizationSettingsService } from './organization-settings.service';
import { SettingsController } from './settings.controller';
import { SETTING_NAMES } from './setting-fields';

const ORG = 'org_spec';
const VIEW = { chunkSize: null, shouldLLMFilter: null };

/** What the service was asked: (method, org, body?), the body with its class. */
const calls: unknown[][] = [];
const settings = {
  get: (org: string) => {
    calls.push(['get', org]);
    return org === 'org_broken' ? Promise.reject(new Error('SQLITE_CORRUPT at /data/keel.db')) : Promise.resolve(VIEW);
  },
  update: (org: string, body: UpdateSettingsBody) => (calls.push(['update', org, body]), Promise.resolve({ orgId: org, orgSlug: org, updated: { ...body } })),
};

const patch = (ctx: ControllerContext, body: unknown) => ctx.http().patch('/v3/settings').send(body as object);
const NOT_A_SETTING = `is not a setting (settings are ${SETTING_NAMES.join(', ')})`;

describe('SettingsController at the boundary (GET, PATCH /v3/settings)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([SettingsController], [{ provide: OrganizationSettingsService, useValue: settings }], { orgId: ORG });
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('GET: 200 with the settings of the organization', async () => {
    const res = await ctx.http().get('/v3/settings');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(VIEW);
    expect(calls).toEqual([['get', ORG]]);
  });

  it('PATCH: 200 (not 201); the service receives the typed body with only the fields sent, in the order sent, null kept (a reset)', async () => {
    const sent = {
      onedriveCustomKeyEnabled: false,
      chunkSize: '512',
      filterPrompt: null,
      includeItems: ['*.md', 'docs/**'],
      excludeItems: '*.test.*',
      githubClientSecret: 's3cret',
      shouldLLMFilter: true,
    };
    const res = await patch(ctx, sent);
    expect(res.status).toBe(200);
    const [[name, org, body]] = calls as [string, string, UpdateSettingsBody][];
    expect([name, org]).toEqual(['update', ORG]);
    expect(body).toBeInstanceOf(UpdateSettingsBody);
    expect({ ...body }).toEqual({ ...sent, chunkSize: 512 });
    expect(Object.keys(body)).toEqual(Object.keys(sent));
    expect(res.body).toEqual({ orgId: ORG, orgSlug: ORG, updated: { ...sent, chunkSize: 512 } });
  });

  it('chunkSize: -1 and null reset it (null reaches the service); otherwise an integer from 100 to 20000', async () => {
    for (const reset of [-1, '-1', null]) {
      calls.length = 0;
      expect((await patch(ctx, { chunkSize: reset })).status).toBe(200);
      expect({ ...(calls[0][2] as object) }).toEqual({ chunkSize: null });
    }
    for (const edge of [100, 20_000]) {
      calls.length = 0;
      expect((await patch(ctx, { chunkSize: edge })).status).toBe(200);
      expect({ ...(calls[0][2] as object) }).toEqual({ chunkSize: edge });
    }
    calls.length = 0;
    for (const [value, details] of [
      [99, 'chunkSize: must be -1 (the default) or between 100 and 20000'],
      [20_001, 'chunkSize: must be -1 (the default) or between 100 and 20000'],
      [0, 'chunkSize: must be -1 (the default) or between 100 and 20000'],
      [512.5, 'chunkSize: must be an integer'],
      ['big', 'chunkSize: must be an integer'],
      [true, 'chunkSize: must be an integer'],
    ] as const) {
      const res = await patch(ctx, { chunkSize: value });
      expect(res.status).toBe(400);
      expectMemoryError(res.body, { error: 'Invalid request parameters', details });
    }
    expect(calls).toEqual([]);
  });

  it('a toggle is a JSON boolean (not its text), a text at most 10000 characters, null allowed for both', async () => {
    const res = await patch(ctx, { shouldLLMFilter: 'true', githubCustomKeyEnabled: 1, filterPrompt: 7, notionClientId: 'x'.repeat(10_001), googleDriveClientSecret: {} });
    expect(res.status).toBe(400);
    expectMemoryError(res.body, {
      details:
        'shouldLLMFilter: must be a boolean; githubCustomKeyEnabled: must be a boolean; filterPrompt: must be a string; ' +
        'notionClientId: must be at most 10000 characters long; googleDriveClientSecret: must be a string',
    });
    expect(calls).toEqual([]);
    const ok = await patch(ctx, { shouldLLMFilter: null, filterPrompt: 'x'.repeat(10_000), notionCustomKeyEnabled: true });
    expect(ok.status).toBe(200);
    expect({ ...(calls[0][2] as object) }).toEqual({ shouldLLMFilter: null, filterPrompt: 'x'.repeat(10_000), notionCustomKeyEnabled: true });
  });

  it('patterns: one string or an array of at most 1000 non-empty strings of at most 500 characters', async () => {
    const res = await patch(ctx, { includeItems: ['*.md', '', 3, 'p'.repeat(501)], excludeItems: { a: 1 } });
    expect(res.status).toBe(400);
    expectMemoryError(res.body, {
      details:
        'includeItems.1: must be a non-empty pattern string (or an array of them); includeItems.2: must be a non-empty pattern string (or an array of them); ' +
        'includeItems.3: must be at most 500 characters long; excludeItems: must be a non-empty pattern string (or an array of them)',
    });
    const blank = await patch(ctx, { excludeItems: '   ' });
    expectMemoryError(blank.body, { details: 'excludeItems: must be a non-empty pattern string (or an array of them)' });
    const many = await patch(ctx, { includeItems: Array.from({ length: 1001 }, (_, i) => `*.${i}`) });
    expectMemoryError(many.body, { details: 'includeItems: must have at most 1000 patterns' });
    expect(calls).toEqual([]);
    const thousand = await patch(ctx, { includeItems: Array.from({ length: 1000 }, (_, i) => `*.${i}`), excludeItems: null });
    expect(thousand.status).toBe(200);
  });

  it('an unknown field: 400 naming it where it was sent, with the list of settings', async () => {
    const res = await patch(ctx, { chunkOverlap: 5, chunkSize: 5 });
    expect(res.status).toBe(400);
    expectMemoryError(res.body, { details: `chunkOverlap: ${NOT_A_SETTING}; chunkSize: must be -1 (the default) or between 100 and 20000` });
    const alone = await patch(ctx, { orgId: 'org_other' });
    expectMemoryError(alone.body, { details: `orgId: ${NOT_A_SETTING}` });
    expect(calls).toEqual([]);
  });

  it('a body that is not a JSON object: 400 naming the body; an empty object changes nothing but is accepted', async () => {
    const res = await patch(ctx, [1]);
    expect(res.status).toBe(400);
    expectMemoryError(res.body, { error: 'Invalid request parameters', details: '(body): the request body must be a JSON object' });
    expect(calls).toEqual([]);
    const empty = await patch(ctx, {});
    expect(empty.status).toBe(200);
    expect({ ...(calls[0][2] as object) }).toEqual({});
  });

  it('an unexpected error of the service: 500 with the request id only', async () => {
    const broken = await controllerSetup([SettingsController], [{ provide: OrganizationSettingsService, useValue: settings }], { orgId: 'org_broken' });
    try {
      const res = await broken.http().get('/v3/settings');
      expect(res.status).toBe(500);
      expectMemoryError(res.body, { error: 'Internal server error', details: `ref ${TEST_REQUEST_ID}` });
    } finally {
      await broken.close();
    }
  });

  it('without an organization: 401 {error} for GET and PATCH, no service called', async () => {
    const bare = await controllerSetup([SettingsController], [{ provide: OrganizationSettingsService, useValue: settings }]);
    try {
      for (const res of [await bare.http().get('/v3/settings'), await bare.http().patch('/v3/settings').send({ chunkSize: 512 })]) {
        expect(res.status).toBe(401);
        expectMemoryError(res.body, { error: 'No organization was resolved for this request', details: null });
      }
      expect(calls).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});
