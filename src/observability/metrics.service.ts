import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every metric `/metrics` exposes, in one place. Modules observe the ones they own (a request, a
 * relayed event, a finished document) or register a reading taken at scrape time (`sample`) for
 * what is cheaper to count when asked (open streams, queue depths).
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly requestDuration = new Histogram({
    name: 'keel_http_request_duration_seconds',
    help: 'HTTP request duration by surface and matched route (event streams and WebSocket connections: how long they stayed open)',
    labelNames: ['surface', 'method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [this.registry],
  });

  readonly relayLag = new Histogram({
    name: 'keel_event_relay_lag_seconds',
    help: "Time from an event's publication on another replica to its delivery here",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [this.registry],
  });

  readonly relayReconnects = new Counter({
    name: 'keel_event_relay_reconnects_total',
    help: 'Times the event relay reconnected to the database after losing its connection',
    registers: [this.registry],
  });

  readonly documentsProcessed = new Counter({
    name: 'keel_pipeline_documents_total',
    help: 'Documents the ingestion pipeline finished, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'keel_' });
  }

  /** A gauge read when `/metrics` is scraped. */
  sample(name: string, help: string, read: () => number | Promise<number>): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }
}
