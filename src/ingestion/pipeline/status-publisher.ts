import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { EventBus } from '../../events/event-bus.service';
import { INGESTION_SETTINGS } from '../ingestion-settings';
import type { IngestionSettings } from '../ingestion-settings';

export const DOCUMENT_STATUS_EVENT = 'memory.document.status';

export interface DocumentStatusEvent {
  id: string;
  customId: string | null;
  status: string;
  dreamingStatus: string;
  error?: string;
  time: string;
}

/** Every persisted transition goes to the global event stream and, when configured, to webhooks. */
@Injectable()
export class StatusPublisher {
  private readonly logger = new Logger('IngestionWebhooks');

  constructor(
    private readonly events: EventBus,
    @Inject(INGESTION_SETTINGS) private readonly settings: IngestionSettings,
  ) {}

  publish(doc: { id: string; customId: string | null; status: string; dreamingStatus: string; error?: string | null }): void {
    const event: DocumentStatusEvent = {
      id: doc.id,
      customId: doc.customId,
      status: doc.status,
      dreamingStatus: doc.dreamingStatus,
      ...(doc.error ? { error: doc.error } : {}),
      time: new Date().toISOString(),
    };
    this.events.publishGlobal(DOCUMENT_STATUS_EVENT, event);
    for (const url of this.settings.webhooks) void this.deliver(url, event);
  }

  /** Best effort, bounded: one attempt with a timeout; a slow or dead receiver never stalls the pipeline. */
  private async deliver(url: string, event: DocumentStatusEvent): Promise<void> {
    const body = JSON.stringify({ type: DOCUMENT_STATUS_EVENT, data: event });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.settings.webhookSecret) headers['x-keel-signature'] = `sha256=${createHmac('sha256', this.settings.webhookSecret).update(body).digest('hex')}`;
    try {
      const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(5000) });
      await response.body?.cancel();
    } catch (error) {
      this.logger.warn({ msg: 'webhook delivery failed', url, error: (error as Error).message });
    }
  }
}
