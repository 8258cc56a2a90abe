import { Injectable } from '@nestjs/common';
import { Observable, Subject, filter, map } from 'rxjs';

/** `{type, properties}`: what `/event` sends and what `GlobalEvent.payload` holds. */
export interface EventPayload<P = unknown> {
  type: string;
  properties: P;
}

/** What `/global/event` sends. `directory` is absent for `project.updated`, "global" for `global.disposed`. */
export interface GlobalEnvelope<P = unknown> {
  directory?: string;
  /** The project of `directory` (opencode 1.18 sends it; its TUI files events by it). */
  project?: string;
  payload: EventPayload<P>;
  /** A signal between replicas (see `signal`): relayed like an event, never sent to clients. */
  signal?: true;
}

/**
 * The process-wide bus. Subscribers run synchronously on publish, so they must only enqueue
 * work (the SSE writers buffer per client; nothing slow happens inside `next`).
 */
@Injectable()
export class EventBus {
  private readonly subject = new Subject<GlobalEnvelope>();
  private readonly signalSubject = new Subject<GlobalEnvelope>();
  /** Set by EventRelay on PostgreSQL: forwards local events to the other replicas. */
  private outbound?: (envelope: GlobalEnvelope) => void;
  /** Set by the Instances (a leaf module cannot ask them): the project of a directory in use. */
  private projectOf?: (directory: string) => string | undefined;

  /** Publish an event of one directory's instance (with its project, when that directory has an Instance). */
  publish<P>(directory: string, type: string, properties: P): void {
    const project = this.projectOf?.(directory);
    this.emit(project === undefined ? { directory, payload: { type, properties } } : { directory, project, payload: { type, properties } });
  }

  /** Names the project of a directory on the events published for it. */
  resolveProjectsWith(projectOf: (directory: string) => string | undefined): void {
    this.projectOf = projectOf;
  }

  /** Publish an event that belongs to no instance (e.g. `project.updated`, routing, memory). */
  publishGlobal<P>(type: string, properties: P, directory?: string): void {
    this.emit(directory === undefined ? { payload: { type, properties } } : { directory, payload: { type, properties } });
  }

  /**
   * Ask every replica, this one included, to act on something it may own (abort the run of a
   * session wherever it runs). Delivered through `signals`, never to event streams.
   */
  signal<P>(type: string, properties: P): void {
    this.emit({ payload: { type, properties }, signal: true });
  }

  /** Signals of one type, local and from other replicas. */
  signals<P>(type: string): Observable<P> {
    return this.signalSubject.pipe(
      filter((e) => e.payload.type === type),
      map((e) => e.payload.properties as P),
    );
  }

  /** Deliver an event another replica published (not relayed again). */
  deliverRemote(envelope: GlobalEnvelope): void {
    (envelope.signal ? this.signalSubject : this.subject).next(envelope);
  }

  relayTo(outbound: ((envelope: GlobalEnvelope) => void) | undefined): void {
    this.outbound = outbound;
  }

  private emit(envelope: GlobalEnvelope): void {
    (envelope.signal ? this.signalSubject : this.subject).next(envelope);
    this.outbound?.(envelope);
  }

  /** Every envelope, as `/global/event` sees them. */
  all(): Observable<GlobalEnvelope> {
    return this.subject.asObservable();
  }

  /** Bare payloads of one directory, as `/event` sees them. */
  forDirectory(directory: string): Observable<EventPayload> {
    return this.subject.pipe(
      filter((e) => e.directory === directory),
      map((e) => e.payload),
    );
  }

  /** Payloads of one type, from any directory. */
  ofType<P>(type: string): Observable<GlobalEnvelope<P>> {
    return this.subject.pipe(filter((e): e is GlobalEnvelope<P> => e.payload.type === type));
  }
}
