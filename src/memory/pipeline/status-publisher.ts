import { Injectable } from '@nestjs/common';
import { EventBus } from '../../events/event-bus.service';
import type { DocumentStatusEvent } from './dto/webhook.dto';
import { WebhookDispatcher } from './webhook-dispatcher';

export const DOCUMENT_STATUS_EVENT = 'memory.document.status';

/** `orgId`: the document's organization (not in the event: its webhook deliveries are listed to that organization's keys only). */
type Transition = Omit<DocumentStatusEvent, 'time' | 'error' | 'extractionFallback'> & { orgId: string; error?: string | null; extractionFallback?: string | null };

/** Every persisted transition goes to the global event stream and, when configured, to webhooks. */
@Injectable()
export class StatusPublisher {
  constructor(
    private readonly events: EventBus,
    private readonly webhooks: WebhookDispatcher,
  ) {}

  publish(doc: Transition): void {
    const event: DocumentStatusEvent = {
      id: doc.id,
      customId: doc.customId,
      status: doc.status,
      dreamingStatus: doc.dreamingStatus,
      ...(doc.error ? { error: doc.error } : {}),
      ...(doc.memoryExtractor ? { memoryExtractor: doc.memoryExtractor } : {}),
      ...(doc.extractionFallback ? { extractionFallback: doc.extractionFallback } : {}),
      time: new Date().toISOString(),
    };
    this.events.publishGlobal(DOCUMENT_STATUS_EVENT, event);
    this.webhooks.enqueue(DOCUMENT_STATUS_EVENT, event, doc.orgId);
  }
}
