import { Module } from '@nestjs/common';
import { ConsoleAuthController } from './console-auth.controller';
import { SignInThrottle } from './sign-in-throttle';

/** The console's sign-in routes (`/keel/auth`, `/keel/login`, `/keel/logout`); the Authenticator is SettingsModule's. */
@Module({ controllers: [ConsoleAuthController], providers: [{ provide: SignInThrottle, useValue: new SignInThrottle() }] })
export class ConsoleAuthModule {}
