import type { Logger } from '@nestjs/common';
import type { GlobalEnvelope } from './event-bus.service';
import { GapTracker } from './gap-tracker';
import { MAX_STREAMING_PARTS, isPartUpdate, originPrefix, remember, streaming } from './relay-message';
import type { RelayLink, RelayMessage } from './relay-message';

/** What the receiving side hands its messages to. */
export interface RelayReceiverTargets {
  /** A remote event, to this replica's bus. */
  deliver(envelope: GlobalEnvelope): void;
  /** Seconds from an origin's publish to its delivery here. */
  observeLag(seconds: number): void;
  /** Another replica asks this one to send again what follows `after`. */
  resendAsked(after: number | undefined): void;
}

/**
 * The receiving side: delivers each origin's messages in seq order and once (holding what
 * arrives ahead of a gap and asking for a resend), fetches large ones from `relayed_event`, and
 * rebuilds streamed parts' text from their deltas. Calls are made one at a time, in receive order.
 */
export class RelayReceiver {
  private readonly gaps = new GapTracker<RelayMessage>();
  /** Streaming parts received: their text so far. */
  private readonly receivedTexts = new Map<string, string>();
  private readonly ownPrefix: string;

  constructor(
    private readonly link: RelayLink,
    private readonly targets: RelayReceiverTargets,
    private readonly logger: Logger,
  ) {
    this.ownPrefix = originPrefix(link.origin);
  }

  async receive(payload: string | undefined): Promise<void> {
    if (!payload || payload.startsWith(this.ownPrefix)) return;
    try {
      const message = JSON.parse(payload) as RelayMessage;
      if (message.origin === this.link.origin) return;
      if (message.resend) return this.targets.resendAsked(message.resend[this.link.origin]);
      if (message.head !== undefined) this.gaps.announced(message.origin, message.head);
      else if (message.seq !== undefined) this.gaps.received(message.origin, message.seq, message);
      else return;
      await this.deliverReady(message.origin);
      const after = this.gaps.resendAfter(message.origin);
      if (after !== undefined) this.askResend({ [message.origin]: after });
    } catch (error) {
      this.logger.warn({ msg: 'dropped a malformed relayed event', error: String(error) });
    }
  }

  /** After a reconnect: asks every followed origin for what was published while this replica was not listening. */
  askMissed(): void {
    const after = this.gaps.positions();
    if (after) this.askResend(after);
  }

  /** Skips gaps nobody filled in time, and forgets origins long silent (replicas that stopped). Runs in the receive order. */
  async checkGaps(): Promise<void> {
    try {
      for (const { origin, missed } of this.gaps.skipExpired()) {
        this.logger.warn({ msg: 'event relay skipped events no replica could send again', origin, missed });
        await this.deliverReady(origin);
      }
    } catch (error) {
      // As in receive(): a delivery that failed (a large event fetched while the connection is down) is
      // logged, and the receive chain goes on; rejected, it would ignore every later notification.
      this.logger.warn({ msg: 'event relay could not deliver held events after a gap', error: String(error) });
    }
  }

  private askResend(after: Record<string, number>): void {
    this.link.enqueue(() =>
      this.link.notify([JSON.stringify({ origin: this.link.origin, resend: after } satisfies RelayMessage)]),
    );
  }

  /** Delivers the held messages that continue the origin's sequence. */
  private async deliverReady(origin: string): Promise<void> {
    let next: RelayMessage | undefined;
    while ((next = this.gaps.nextReady(origin))) await this.deliver(next);
  }

  private async deliver(message: RelayMessage): Promise<void> {
    if (message.ref !== undefined) {
      const { rows } = await this.link.fetch<{ envelope: string }>(
        'SELECT envelope FROM relayed_event WHERE id = $1',
        [message.ref],
      );
      if (!rows[0]) return;
      message = JSON.parse(rows[0].envelope) as RelayMessage;
    }
    const envelope = message.envelope;
    if (!envelope) return;
    const update = streaming(envelope);
    if (message.appended && update) {
      const previous = this.receivedTexts.get(update.part.id);
      if (previous?.length !== message.appended.base) return;
      update.part.text = previous + update.delta;
    }
    if (update) remember(this.receivedTexts, update.part.id, update.part.text, MAX_STREAMING_PARTS);
    else if (isPartUpdate(envelope) && envelope.payload.properties.part?.id)
      this.receivedTexts.delete(envelope.payload.properties.part.id);
    if (message.at !== undefined) this.targets.observeLag((Date.now() - message.at) / 1000);
    this.targets.deliver(envelope);
  }
}
