/** A remote origin as this replica follows it. */
interface OriginState<M> {
  /** Last seq delivered (or skipped). */
  delivered: number;
  /** Highest seq known to exist (seen, or announced). */
  known: number;
  /** Messages that arrived ahead of a gap, by seq, waiting for it to be filled. */
  held: Map<number, M>;
  /** When the oldest unfilled gap was noticed. */
  gapSince?: number;
  /** When a resend of the gap was last asked for. */
  askedAt?: number;
  heardAt: number;
}

export interface GapTrackerLimits {
  /** How long a gap waits to be filled by a resend before it is skipped. */
  gapWaitMs: number;
  /** How often a resend of the same gap may be asked for. */
  resendAskEveryMs: number;
  /** Origins not heard from for this long are forgotten (replicas that stopped). */
  forgetOriginMs: number;
}

const GAP_TRACKER_LIMITS: GapTrackerLimits = {
  gapWaitMs: 3_000,
  resendAskEveryMs: 250,
  forgetOriginMs: 10 * 60_000,
};

/**
 * The receiving side's bookkeeping of each origin's sequence numbers: which messages can be
 * delivered now (each origin's in seq order, once), which wait behind a gap, when to ask for a
 * resend, and when a gap nobody filled is skipped. It holds the messages, never delivers them.
 */
export class GapTracker<M> {
  private readonly origins = new Map<string, OriginState<M>>();

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly limits: GapTrackerLimits = GAP_TRACKER_LIMITS,
  ) {}

  /** An origin's message numbered `seq`: held until every earlier one is delivered (dropped if already delivered). */
  received(origin: string, seq: number, message: M): void {
    // At first contact, what the origin sent before is history this replica never saw.
    const state = this.follow(origin, seq - 1);
    state.known = Math.max(state.known, seq);
    if (seq > state.delivered) state.held.set(seq, message);
  }

  /** An origin's announced latest seq: a new origin starts from it, a known one has a gap if it is behind. */
  announced(origin: string, head: number): void {
    const state = this.follow(origin, head);
    state.known = Math.max(state.known, head);
  }

  /** The next message of the origin's sequence, now counted as delivered; undefined when the next one is missing. */
  nextReady(origin: string): M | undefined {
    const state = this.origins.get(origin);
    if (!state) return undefined;
    const next = state.held.get(state.delivered + 1);
    if (next !== undefined) {
      state.held.delete(state.delivered + 1);
      state.delivered++;
      return next;
    }
    if (state.known <= state.delivered) state.gapSince = state.askedAt = undefined;
    return undefined;
  }

  /**
   * After delivering what was ready: the seq after which the origin should send again, when it
   * has a gap and no resend was asked for within `resendAskEveryMs`.
   */
  resendAfter(origin: string): number | undefined {
    const state = this.origins.get(origin);
    if (!state || state.known <= state.delivered) return undefined;
    const now = this.clock();
    state.gapSince ??= now;
    if (state.askedAt !== undefined && now - state.askedAt < this.limits.resendAskEveryMs) return undefined;
    state.askedAt = now;
    return state.delivered;
  }

  /** What each followed origin has delivered (a reconnect asks for everything after it). */
  positions(): Record<string, number> | undefined {
    if (this.origins.size === 0) return undefined;
    return Object.fromEntries([...this.origins].map(([origin, state]) => [origin, state.delivered]));
  }

  /**
   * Forgets origins long silent, and skips each gap that waited longer than `gapWaitMs`: to just
   * before the first held message, or to the latest known seq. Returns the origins skipped (their
   * held messages are now ready) and how many messages each missed.
   */
  skipExpired(): { origin: string; missed: number }[] {
    const now = this.clock();
    const skipped: { origin: string; missed: number }[] = [];
    for (const [origin, state] of this.origins) {
      if (now - state.heardAt > this.limits.forgetOriginMs) this.origins.delete(origin);
      else if (state.gapSince !== undefined && now - state.gapSince > this.limits.gapWaitMs) {
        const resume = state.held.size > 0 ? Math.min(...state.held.keys()) - 1 : state.known;
        skipped.push({ origin, missed: resume - state.delivered });
        state.delivered = resume;
      }
    }
    return skipped;
  }

  /** The state of an origin, created at first contact as having delivered `delivered`. */
  private follow(origin: string, delivered: number): OriginState<M> {
    let state = this.origins.get(origin);
    if (!state) {
      state = { delivered, known: delivered, held: new Map(), heardAt: this.clock() };
      this.origins.set(origin, state);
    }
    state.heardAt = this.clock();
    return state;
  }
}
