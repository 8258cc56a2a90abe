import { issue, ValidationError, ValidationIssue } from '../common/errors';

/** Reads fields of a JSON request body, collecting one issue per bad field (400 names them all). */
export class RequestBody {
  readonly issues: ValidationIssue[] = [];
  private readonly body: Record<string, unknown>;

  constructor(
    private readonly raw: unknown,
    private readonly prefix: (string | number)[] = [],
  ) {
    const isObject = raw !== null && typeof raw === 'object' && !Array.isArray(raw);
    if (!isObject && raw !== undefined)
      this.issues.push(issue(prefix, 'must be a JSON object', 'invalid_type'));
    this.body = isObject ? (raw as Record<string, unknown>) : {};
  }

  has(field: string): boolean {
    return this.body[field] !== undefined && this.body[field] !== null;
  }

  private fail(field: string, message: string, code = 'invalid_type'): undefined {
    this.issues.push(issue([...this.prefix, field], message, code));
    return undefined;
  }

  /** A non-empty string (gin `binding:"required"`). */
  requiredString(field: string): string {
    const value = this.body[field];
    if (typeof value !== 'string' || value.trim() === '')
      return this.fail(field, 'is required and must be a non-empty string') ?? '';
    return value;
  }

  optionalString(field: string): string | undefined {
    const value = this.body[field];
    if (value === undefined || value === null) return undefined;
    return typeof value === 'string' ? value : this.fail(field, 'must be a string');
  }

  optionalInteger(field: string): number | undefined {
    const value = this.body[field];
    if (value === undefined || value === null) return undefined;
    return typeof value === 'number' && Number.isSafeInteger(value)
      ? value
      : this.fail(field, 'must be an integer');
  }

  requiredBoolean(field: string): boolean {
    const value = this.body[field];
    return typeof value === 'boolean'
      ? value
      : (this.fail(field, 'is required and must be a boolean') ?? false);
  }

  /** A JSON object (`{}` allowed; null, arrays and scalars are not). */
  requiredObject(field: string): Record<string, unknown> {
    const value = this.body[field];
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      return this.fail(field, 'is required and must be a JSON object') ?? {};
    return value as Record<string, unknown>;
  }

  requiredArray(field: string): unknown[] {
    const value = this.body[field];
    return Array.isArray(value) ? value : (this.fail(field, 'is required and must be an array') ?? []);
  }

  /** Adds an issue found by a caller's own rule. */
  reject(path: (string | number)[], message: string, code = 'invalid_value'): void {
    this.issues.push(issue([...this.prefix, ...path], message, code));
  }

  /** Throws the 400 when any field was bad. */
  done(): void {
    if (this.issues.length) throw new ValidationError(this.issues, this.raw);
  }
}
