import { ConflictError, NotFoundError } from '../../common/errors';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../../test/support/error-bodies';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsService } from './organizations.service';

/*
 * /keel/organizations is a Keel route outside /v3 and /v4: it answers in the session surface's
 * dialect (`{data, error:[issues], success:false}` for a bad body, `{name, data:{message}}` otherwise),
 * as its OpenAPI responses declare.
 */
const ORG = 'org_3Fq9XkT2mNpL8vWc';
const view = (id: string, name: string) => ({ id, name, isDefault: false, keyCount: 0, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' });
const key = (orgId: string, name: string) => ({ id: 'key_1', orgId, name, prefix: 'keel_a1B2c3D4', createdAt: '2026-01-01T00:00:00.000Z', lastUsedAt: null });

/** What the service was asked; `org_missing` is unknown, `local` the default, `org_full` holds data. */
const calls: unknown[][] = [];
const missing = (id: string) => (id === 'org_missing' ? Promise.reject(new NotFoundError(`Organization not found: ${id}`)) : undefined);
const organizations = {
  list: () => (calls.push(['list']), Promise.resolve([view('local', 'Default')])),
  create: (name: unknown) => (calls.push(['create', name]), Promise.resolve(view(ORG, name as string))),
  rename: (id: string, name: unknown) => (calls.push(['rename', id, name]), missing(id) ?? Promise.resolve(view(id, name as string))),
  remove: (id: string) => {
    calls.push(['remove', id]);
    if (id === 'local') return Promise.reject(new ConflictError('The default organization cannot be deleted (KEEL_API_KEYS and requests without a key use it)'));
    if (id === 'org_full') return Promise.reject(new ConflictError('Organization org_full still holds data (3 rows of memory_documents); delete its documents and memories first'));
    if (id === 'org_broken') return Promise.reject(new Error('SQLITE_CORRUPT at /data/keel.db'));
    return missing(id) ?? Promise.resolve();
  },
  listKeys: (id: string) => (calls.push(['listKeys', id]), missing(id) ?? Promise.resolve([key(id, 'search')])),
  createKey: (id: string, name: unknown) => (calls.push(['createKey', id, name]), missing(id) ?? Promise.resolve({ ...key(id, name as string), key: 'keel_secret' })),
  revokeKey: (id: string, keyId: string) => {
    calls.push(['revokeKey', id, keyId]);
    return keyId === 'key_missing' ? Promise.reject(new NotFoundError(`API key not found: ${keyId}`)) : Promise.resolve();
  },
};

/** The issues of a session 400 body as `path: message`. */
const issuesOf = (body: unknown) => expectSessionBadRequest(body).error.map((i) => `${i.path.join('.')}: ${i.message}`);

describe('OrganizationsController at the boundary (/keel/organizations, session error dialect)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([OrganizationsController], [{ provide: OrganizationsService, useValue: organizations }]);
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('list 200, create 201, rename 200, delete 204 (empty); the service receives the name trimmed and the id from the path', async () => {
    const list = await ctx.http().get('/keel/organizations');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([view('local', 'Default')]);
    const created = await ctx.http().post('/keel/organizations').send({ name: '  Team Search ' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(view(ORG, 'Team Search'));
    const renamed = await ctx.http().patch(`/keel/organizations/${ORG}`).send({ name: 'Team Docs' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual(view(ORG, 'Team Docs'));
    const removed = await ctx.http().delete(`/keel/organizations/${ORG}`);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    expect(calls).toEqual([['list'], ['create', 'Team Search'], ['rename', ORG, 'Team Docs'], ['remove', ORG]]);
  });

  it('keys: list 200, create 201 with the key, revoke 204; the ids come from the path, the name trimmed', async () => {
    const list = await ctx.http().get(`/keel/organizations/${ORG}/keys`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([key(ORG, 'search')]);
    const created = await ctx.http().post(`/keel/organizations/${ORG}/keys`).send({ name: 'search backend\n' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ ...key(ORG, 'search backend'), key: 'keel_secret' });
    const revoked = await ctx.http().delete(`/keel/organizations/${ORG}/keys/key_1`);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    expect(calls).toEqual([['listKeys', ORG], ['createKey', ORG, 'search backend'], ['revokeKey', ORG, 'key_1']]);
  });

  it('name: required, a string of at most 100 characters, not blank (each rule 400 naming name)', async () => {
    for (const [sent, message] of [
      [{}, 'is required'],
      [{ name: null }, 'is required'],
      [{ name: 5 }, 'must be a string'],
      [{ name: '   ' }, 'must not be blank'],
      [{ name: '' }, 'must not be blank'],
      [{ name: 'x'.repeat(101) }, 'must be at most 100 characters long'],
    ] as const) {
      for (const path of ['/keel/organizations', `/keel/organizations/${ORG}/keys`]) {
        const res = await ctx.http().post(path).send(sent);
        expect(res.status).toBe(400);
        expectSessionBadRequest(res.body, 'name');
        expect(issuesOf(res.body)).toEqual([`name: ${message}`]);
        expect(res.body.data).toEqual(sent);
      }
    }
    const rename = await ctx.http().patch(`/keel/organizations/${ORG}`).send({ name: ' ' });
    expect(rename.status).toBe(400);
    expect(issuesOf(rename.body)).toEqual(['name: must not be blank']);
    expect(calls).toEqual([]);
    const longest = await ctx.http().post('/keel/organizations').send({ name: 'x'.repeat(100) });
    expect(longest.status).toBe(201);
  });

  it('an unknown field: 400 naming it, before the name', async () => {
    const res = await ctx.http().post('/keel/organizations').send({ colour: 'red', name: 'ok' });
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, 'colour');
    expect(issuesOf(res.body)).toEqual(['colour: is not a field (the only field is name)']);
    const both = await ctx.http().post(`/keel/organizations/${ORG}/keys`).send({ name: '', orgId: 'local' });
    expect(issuesOf(both.body)).toEqual(['orgId: is not a field (the only field is name)', 'name: must not be blank']);
    const rename = await ctx.http().patch(`/keel/organizations/${ORG}`).send({ name: 'ok', isDefault: true });
    expect(issuesOf(rename.body)).toEqual(['isDefault: is not a field (the only field is name)']);
    expect(calls).toEqual([]);
  });

  it('a body that is not a JSON object, or none: 400 in the session dialect', async () => {
    const array = await ctx.http().post('/keel/organizations').send(['name']);
    expect(array.status).toBe(400);
    expect(issuesOf(array.body)).toEqual([': the request body must be a JSON object']);
    const none = await ctx.http().post('/keel/organizations');
    expect(none.status).toBe(400);
    expect(issuesOf(none.body)).toEqual([': the request body must be a JSON object']);
    expect(calls).toEqual([]);
  });

  it('an unknown organization or key: 404 {name: NotFoundError, data: {message}}', async () => {
    for (const [method, path, body] of [
      ['patch', '/keel/organizations/org_missing', { name: 'x' }],
      ['delete', '/keel/organizations/org_missing', undefined],
      ['get', '/keel/organizations/org_missing/keys', undefined],
      ['post', '/keel/organizations/org_missing/keys', { name: 'x' }],
    ] as const) {
      const res = await ctx.http()[method](path).send(body);
      expect(res.status).toBe(404);
      expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('Organization not found: org_missing');
    }
    const revoked = await ctx.http().delete(`/keel/organizations/${ORG}/keys/key_missing`);
    expect(revoked.status).toBe(404);
    expect(expectSessionError(revoked.body, 'NotFoundError').data.message).toBe('API key not found: key_missing');
  });

  it('deleting the default organization or one holding data: 409 {name: ConflictError}', async () => {
    const local = await ctx.http().delete('/keel/organizations/local');
    expect(local.status).toBe(409);
    expect(expectSessionError(local.body, 'ConflictError').data.message).toMatch(/^The default organization cannot be deleted/);
    const full = await ctx.http().delete('/keel/organizations/org_full');
    expect(full.status).toBe(409);
    expect(expectSessionError(full.body, 'ConflictError').data.message).toMatch(/still holds data/);
  });

  it('a NUL in a path id: 400, before the service; an unexpected error: 500 with the request id only', async () => {
    const nul = await ctx.http().delete('/keel/organizations/org%00x');
    expect(nul.status).toBe(400);
    expect(issuesOf(nul.body)).toEqual([expect.stringMatching(/^id: must not contain NUL/)]);
    expect(calls).toEqual([]);
    const broken = await ctx.http().delete('/keel/organizations/org_broken');
    expect(broken.status).toBe(500);
    expect(broken.body).toEqual({ name: 'UnknownError', data: { message: 'Unexpected server error', ref: TEST_REQUEST_ID } });
  });
});
