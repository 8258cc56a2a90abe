import type { Logger } from '@nestjs/common';
import type { GlobalEnvelope } from './event-bus.service';
import type { RelayLink, RelayMessage } from './relay-message';
import { RelayReceiver } from './relay-receiver';
import { RelaySender } from './relay-sender';

const logger = { warn: () => undefined, log: () => undefined } as unknown as Logger;

interface Replica {
  origin: string;
  sender: RelaySender;
  receiver: RelayReceiver;
  delivered: GlobalEnvelope[];
  hear(payload: string): void;
  idle(): Promise<unknown>;
}

/** Replicas joined by an in-memory channel standing in for NOTIFY; `drop` loses messages on their way to one replica. */
function network() {
  const replicas: Replica[] = [];
  const wire: RelayMessage[] = [];
  let drop: (to: string, message: RelayMessage) => boolean = () => false;

  /** `hasPeers` stands for what the replica has heard of the others (true: it sends). */
  function replica(origin: string, hasPeers: () => boolean = () => true): Replica {
    const delivered: GlobalEnvelope[] = [];
    let queue = Promise.resolve();
    const link: RelayLink = {
      origin,
      isConnected: () => true,
      hasPeers,
      send: () => Promise.reject(new Error('no large events here')),
      fetch: () => Promise.reject(new Error('no large events here')),
      notify: (payloads) => {
        for (const payload of payloads) {
          const message = JSON.parse(payload) as RelayMessage;
          wire.push(message);
          for (const to of replicas) if (to.origin !== origin && !drop(to.origin, message)) to.hear(payload);
        }
        return Promise.resolve();
      },
      enqueue: (task) => {
        queue = queue.then(task);
      },
      lost: () => undefined,
    };
    const sender = new RelaySender(link, logger);
    const receiver = new RelayReceiver(
      link,
      {
        deliver: (envelope) => delivered.push(envelope),
        observeLag: () => undefined,
        resendAsked: (after) => sender.resend(after),
      },
      logger,
    );
    // Like LISTEN: notifications arrive later, and are handled one at a time.
    let received = Promise.resolve();
    const hear = (payload: string) => {
      received = received
        .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
        .then(() => receiver.receive(payload));
    };
    const self: Replica = {
      origin,
      sender,
      receiver,
      delivered,
      hear,
      idle: () => Promise.all([queue, received]),
    };
    replicas.push(self);
    return self;
  }

  async function settle(): Promise<void> {
    for (let i = 0; i < 10; i++) {
      await Promise.all(replicas.map((r) => r.idle()));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  return { replica, settle, wire, dropWhen: (rule: typeof drop) => (drop = rule) };
}

/** A drop rule that drops only the first message it matches (a resend of it gets through). */
function once(rule: (to: string, message: RelayMessage) => boolean) {
  let dropped = false;
  return (to: string, message: RelayMessage) => !dropped && rule(to, message) && (dropped = true);
}

const event = (n: number): GlobalEnvelope => ({
  directory: '/d',
  payload: { type: 'session.idle', properties: { n } },
});
const part = (text: string, delta?: string): GlobalEnvelope => ({
  directory: '/d',
  payload: {
    type: 'message.part.updated',
    properties: { part: { id: 'p1', text }, ...(delta === undefined ? {} : { delta }) },
  },
});

describe('RelaySender and RelayReceiver', () => {
  it('sends a streamed part as deltas after its whole first update; the receiver rebuilds identical events', async () => {
    const net = network();
    const a = net.replica('a');
    const b = net.replica('b');
    const sent = [part('He', 'He'), part('Hel', 'l'), part('Hello', 'lo'), part('Hello')];
    for (const envelope of sent) a.sender.send(envelope);
    await net.settle();
    expect(net.wire.map((m) => m.appended)).toEqual([undefined, { base: 2 }, { base: 3 }, undefined]);
    expect(JSON.stringify(b.delivered)).toBe(JSON.stringify(sent));
  });

  it('skips the deltas of a part whose start the receiver missed, until the part goes whole', async () => {
    const net = network();
    const a = net.replica('a');
    const b = net.replica('b');
    net.dropWhen((to, message) => to === 'b' && message.seq === 1);
    for (const envelope of [part('He', 'He'), part('Hel', 'l'), part('Hello')]) a.sender.send(envelope);
    await net.settle();
    expect(b.delivered).toEqual([part('Hello')]);
  });

  it('fills a gap from the sender history: the receiver asks, and delivers in order and once', async () => {
    const net = network();
    const a = net.replica('a');
    const b = net.replica('b');
    net.dropWhen(once((to, message) => to === 'b' && message.seq === 2));
    a.sender.send(event(1));
    await net.settle();
    a.sender.send(event(2));
    a.sender.send(event(3));
    await net.settle();
    expect(net.wire.filter((m) => m.resend)).toEqual([{ origin: 'b', resend: { a: 1 } }]);
    expect(b.delivered).toEqual([event(1), event(2), event(3)]);
  });

  it('sends nothing while it hears no other replica; one it did not hear gets the kept messages through the head and a resend', async () => {
    const net = network();
    let heard = false;
    const a = net.replica('a', () => heard);
    const b = net.replica('b');
    a.sender.send(event(1));
    await net.settle();
    expect(net.wire).toEqual([]);
    a.sender.announce(); // b follows a from the head: event 1 was before it
    await net.settle();
    a.sender.send(event(2));
    a.sender.send(event(3));
    await net.settle();
    expect(b.delivered).toEqual([]);
    a.sender.announce(); // b, silent so far, now sees a gap and asks for it
    heard = true;
    await net.settle();
    expect(net.wire.filter((m) => m.resend)).toEqual([{ origin: 'b', resend: { a: 1 } }]);
    a.sender.send(event(4));
    await net.settle();
    expect(b.delivered).toEqual([event(2), event(3), event(4)]);
  });

  it('learns of a missed message from the head announcement', async () => {
    const net = network();
    const a = net.replica('a');
    const b = net.replica('b');
    a.sender.send(event(1));
    await net.settle();
    net.dropWhen(once((to, message) => to === 'b' && message.seq === 2));
    a.sender.send(event(2));
    await net.settle();
    expect(b.delivered).toEqual([event(1)]);
    a.sender.announce();
    await net.settle();
    expect(net.wire.filter((m) => m.resend)).toEqual([{ origin: 'b', resend: { a: 1 } }]);
    expect(b.delivered).toEqual([event(1), event(2)]);
  });

  it('goes on receiving after a held large event cannot be fetched when its gap is skipped', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setImmediate', 'nextTick'] });
    try {
      const delivered: GlobalEnvelope[] = [];
      const link: RelayLink = {
        origin: 'b',
        isConnected: () => true,
        hasPeers: () => true,
        send: () => Promise.reject(new Error('not sending here')),
        // The connection is down: relayed_event cannot be read.
        fetch: () => Promise.reject(new Error('Connection terminated')),
        notify: () => Promise.resolve(),
        enqueue: () => undefined,
        lost: () => undefined,
      };
      const receiver = new RelayReceiver(
        link,
        { deliver: (e) => delivered.push(e), observeLag: () => undefined, resendAsked: () => undefined },
        logger,
      );
      const payload = (message: RelayMessage) => JSON.stringify(message);
      await receiver.receive(payload({ origin: 'a', seq: 1, envelope: event(1) }));
      // seq 2 never comes; seq 3 is a large event, held behind the gap.
      await receiver.receive(payload({ origin: 'a', seq: 3, ref: 7 }));
      jest.setSystemTime(1_000_000 + 60_000);
      await expect(receiver.checkGaps()).resolves.toBeUndefined();
      await receiver.receive(payload({ origin: 'a', seq: 4, envelope: event(4) }));
      expect(delivered).toEqual([event(1), event(4)]);
    } finally {
      jest.useRealTimers();
    }
  });
});
