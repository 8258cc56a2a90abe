import { Authenticator } from '../common/auth.middleware';
import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest } from '../../test/support/error-bodies';
import { ConsoleAuthController } from './console-auth.controller';
import { SignInThrottle } from './sign-in-throttle';

/** The credentials the password check was asked about. */
const checked: [string, string][] = [];
const authenticator = {
  passwordRequired: true,
  sessions: { issue: () => ({ token: 'token', expiresAt: 1 }), lifetimeSeconds: 60, revoke: () => undefined },
  checkPassword: (username: string, password: string) => (checked.push([username, password]), password === 'secret'),
};

describe('POST /keel/login at the boundary', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([ConsoleAuthController], [
      { provide: Authenticator, useValue: authenticator },
      { provide: SignInThrottle, useValue: new SignInThrottle() },
    ]);
  });
  afterAll(() => ctx.close());
  beforeEach(() => (checked.length = 0));

  it('signs in with the password; the username defaults to "opencode"', async () => {
    const res = await ctx.http().post('/keel/login').send({ password: 'secret' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ passwordRequired: true, signedIn: true, expiresAt: 1 });
    expect(res.headers['set-cookie']?.[0]).toMatch(/^keel_session=token; Path=\/; HttpOnly; SameSite=Strict/);
    expect(checked).toEqual([['opencode', 'secret']]);
  });

  it('a bad body is a 400 naming each field, before the password is checked, and never echoes the password', async () => {
    const res = await ctx.http().post('/keel/login').send({ username: 7, password: 'x'.repeat(1025) });
    expect(res.status).toBe(400);
    const body = expectSessionBadRequest(res.body, 'username');
    expect(body.error.map((i) => i.message)).toEqual(['username must be a string of at most 256 characters', 'password must be a string of at most 1024 characters']);
    expect(body.data).toEqual({ username: 7 });
    const notAnObject = await ctx.http().post('/keel/login').send(['secret']);
    expect(notAnObject.status).toBe(400);
    expect(expectSessionBadRequest(notAnObject.body).error[0]).toMatchObject({ path: [], message: 'body must be a JSON object {username?, password}' });
    expect(checked).toEqual([]);
  });

  it('a wrong password is 401', async () => {
    const res = await ctx.http().post('/keel/login').send({ username: 'me', password: 'guess' });
    expect(res.status).toBe(401);
    expect(checked).toEqual([['me', 'guess']]);
  });
});
