import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Authenticator } from '../common/auth.middleware';
import { readCookie, SESSION_COOKIE } from '../common/console-session';
import { issue, TooManyRequestsError, UnauthorizedError } from '../common/errors';
import { Field, RequestValidationPipe, Rule } from '../common/validation/request-fields';
import { SIGN_IN_FAILURES, SignInThrottle } from './sign-in-throttle';

interface ConsoleAuthState {
  /** Whether the server has a password (without one, every request is let in: loopback only). */
  passwordRequired: boolean;
  /** Whether this request is signed in: the console's cookie, or the password itself. */
  signedIn: boolean;
  /** When the console sign-in ends (ms since the epoch), when signed in by cookie. */
  expiresAt?: number;
}

const AUTH_STATE_SCHEMA = {
  type: 'object',
  required: ['passwordRequired', 'signedIn'],
  properties: {
    passwordRequired: { type: 'boolean' },
    signedIn: { type: 'boolean' },
    expiresAt: { type: 'integer', description: 'End of the console sign-in, milliseconds since the epoch' },
  },
};

/** A string of at most `max` characters (`optional`: it may be left out). */
const text =
  (field: string, max: number, optional = false): Rule =>
  (value, _body, at) =>
    (optional && value === undefined) || (typeof value === 'string' && value.length <= max) ? [] : [issue(at, `${field} must be a string of at most ${max} characters`)];

/** `POST /keel/login`'s body. */
class SignInBody {
  @Field({ type: 'string', description: 'KEEL_SERVER_USERNAME; "opencode" when left out' }, 'username', text('username', 256, true), true)
  username?: string;

  @Field({ type: 'string' }, 'password', text('password', 1024))
  password!: string;
}

/** The password is never echoed in a 400. */
const signInPipe = new RequestValidationPipe({ notAnObject: 'body must be a JSON object {username?, password}', unechoed: ['password'] });

/**
 * The console's sign-in (docs/console.md, docs/security.md): the server password once, then an
 * HttpOnly, SameSite=Strict session cookie that every tab of the console shares until sign-out or
 * expiry. These three routes are reached without credentials and never answer a challenge; the
 * origin rules (request-origin.ts) apply to them like to every other route.
 */
@ApiTags('console')
@Controller('keel')
export class ConsoleAuthController {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly throttle: SignInThrottle,
  ) {}

  @Get('auth')
  @ApiOperation({ summary: 'Whether a password is needed, and whether this browser is signed in (never 401)', security: [] })
  @ApiOkResponse({ description: 'The sign-in state', schema: AUTH_STATE_SCHEMA })
  state(@Req() req: Request, @Res({ passthrough: true }) res: Response): ConsoleAuthState {
    res.setHeader('Cache-Control', 'no-store');
    if (!this.authenticator.passwordRequired) return { passwordRequired: false, signedIn: true };
    const expiresAt = this.authenticator.cookieSession(req);
    if (expiresAt !== undefined) return { passwordRequired: true, signedIn: true, expiresAt };
    return { passwordRequired: true, signedIn: this.authenticator.allowsServerRequest(req) };
  }

  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Sign the console in with the server password: sets the session cookie', security: [] })
  @ApiBody({ type: SignInBody })
  @ApiOkResponse({ description: 'Signed in: `Set-Cookie: keel_session=…; HttpOnly; SameSite=Strict; Path=/`', schema: AUTH_STATE_SCHEMA })
  @ApiUnauthorizedResponse({ description: 'Wrong username or password' })
  @ApiTooManyRequestsResponse({
    description: `More than ${SIGN_IN_FAILURES} failed sign-ins from this address in a minute: \`Retry-After\` (and \`data.retryAfter\`) says in how many seconds to try again`,
  })
  login(@Body(signInPipe) { username = 'opencode', password }: SignInBody, @Req() req: Request, @Res({ passthrough: true }) res: Response): ConsoleAuthState {
    res.setHeader('Cache-Control', 'no-store');
    const sessions = this.authenticator.sessions;
    if (!sessions) return { passwordRequired: false, signedIn: true };
    // Refused while throttled even with the right password, so a guess cannot be confirmed.
    const client = req.ip ?? req.socket.remoteAddress ?? '';
    const wait = this.throttle.retryAfterSeconds(client);
    if (wait > 0) throw new TooManyRequestsError(`Too many failed sign-ins from this address: try again in ${wait} s`, wait);
    if (!this.authenticator.checkPassword(username, password)) {
      this.throttle.failed(client);
      throw new UnauthorizedError('Wrong username or password');
    }
    this.throttle.succeeded(client);
    const session = sessions.issue();
    res.setHeader('Set-Cookie', cookie(req, session.token, sessions.lifetimeSeconds));
    return { passwordRequired: true, signedIn: true, expiresAt: session.expiresAt };
  }

  @Post('logout')
  @HttpCode(204)
  @ApiOperation({ summary: 'Sign the console out: ends its session and clears the cookie', security: [] })
  @ApiNoContentResponse({ description: 'Signed out' })
  logout(@Req() req: Request, @Res({ passthrough: true }) res: Response): void {
    this.authenticator.sessions?.revoke(readCookie(req, SESSION_COOKIE));
    res.setHeader('Set-Cookie', cookie(req, '', 0));
  }
}

function cookie(req: Request, value: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${req.secure ? '; Secure' : ''}`;
}
