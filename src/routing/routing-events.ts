import { Injectable } from '@nestjs/common';
import { filter, Observable } from 'rxjs';
import { EventBus, GlobalEnvelope } from '../events/event-bus.service';

const PREFIX = 'routing.';

/** Every routing mutation is announced on the global stream as `routing.<subject>.<verb>`. */
@Injectable()
export class RoutingEvents {
  constructor(private readonly bus: EventBus) {}

  publish(type: string, properties: Record<string, unknown>): void {
    this.bus.publishGlobal(`${PREFIX}${type}`, properties);
  }

  /** Routing events that change what the Traefik configuration contains. */
  changes(): Observable<GlobalEnvelope> {
    return this.bus.all().pipe(filter((e) => e.payload.type.startsWith(PREFIX)));
  }
}
