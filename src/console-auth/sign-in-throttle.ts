import { Injectable } from '@nestjs/common';

/** Failed sign-ins a client address may make in one window before it is refused. */
export const SIGN_IN_FAILURES = 10;
const SIGN_IN_WINDOW_MS = 60_000;
/** Addresses remembered at most: a flood of new addresses evicts the oldest, not the server's memory. */
const MAX_ADDRESSES = 10_000;

/**
 * Failed console sign-ins per client address (Express's `req.ip`, so behind a proxy only when
 * `KEEL_TRUST_PROXY` trusts it), over a sliding window: past `SIGN_IN_FAILURES` in `SIGN_IN_WINDOW_MS`
 * the address waits until its oldest failure leaves the window, so guessing the password is slow.
 */
@Injectable()
export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit = SIGN_IN_FAILURES,
    private readonly windowMs = SIGN_IN_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whole seconds until `address` may try again; 0 when it may now. */
  retryAfterSeconds(address: string): number {
    const recent = this.recent(address);
    if (recent.length < this.limit) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - this.limit] + this.windowMs - this.now()) / 1000));
  }

  failed(address: string): void {
    const recent = this.recent(address);
    recent.push(this.now());
    // Re-inserted, so the map's order is last-failure order and the first key is the stalest.
    this.failures.delete(address);
    this.failures.set(address, recent.slice(-this.limit));
    if (this.failures.size > MAX_ADDRESSES) this.failures.delete(this.failures.keys().next().value!);
  }

  succeeded(address: string): void {
    this.failures.delete(address);
  }

  private recent(address: string): number[] {
    const since = this.now() - this.windowMs;
    const recent = (this.failures.get(address) ?? []).filter((at) => at > since);
    if (recent.length === 0) this.failures.delete(address);
    return recent;
  }
}
