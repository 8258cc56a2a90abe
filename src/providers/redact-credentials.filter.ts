import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { ValidationError } from '../common/errors';
import { HttpErrorFilter } from '../common/http-error.filter';

const SECRET_MEMBERS = ['key', 'access', 'refresh', 'token'];

/**
 * A rejected `PUT /auth` body is echoed in the 400 (`data`) by the session dialect; credentials
 * must never travel back, so their values are masked before the common filter renders it.
 */
@Catch(ValidationError)
export class RedactCredentialsFilter implements ExceptionFilter {
  private readonly inner = new HttpErrorFilter();

  catch(error: ValidationError, host: ArgumentsHost): void {
    const input = error.input;
    const masked =
      typeof input === 'object' && input !== null && !Array.isArray(input)
        ? Object.fromEntries(Object.entries(input).map(([k, v]) => [k, SECRET_MEMBERS.includes(k) ? '[redacted]' : v]))
        : null;
    this.inner.catch(new ValidationError(error.issues, masked), host);
  }
}
