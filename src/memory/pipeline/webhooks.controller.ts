import { Get } from '@nestjs/common';
import { ApiExtraModels } from '@nestjs/swagger';
import { MemoryController, MemoryOperation } from '../memory-api.decorators';
import { MemoryQuery } from '../validation';
import { WebhookDispatcher } from './webhook-dispatcher';
import { Org } from '../organizations/org.decorator';
import { DocumentStatusEvent, WebhookDeliveriesQuery, WebhookOutboxResponse } from './dto/webhook.dto';

/** Keel addition: the webhook outbox (deliveries not yet accepted by their receiver), for the console. */
// Documented for clients of the event stream and of webhooks, which no operation answers with.
@ApiExtraModels(DocumentStatusEvent)
@MemoryController({ path: 'v3/webhooks', tag: 'memory: webhooks', errors: [{ status: 400 }, { status: 401 }] })
export class WebhooksController {
  constructor(private readonly webhooks: WebhookDispatcher) {}

  @Get('deliveries')
  @MemoryOperation('webhooks.deliveries', 'Webhook deliveries waiting or retrying (Keel addition)', {
    type: WebhookOutboxResponse,
  })
  deliveries(@Org() org: string, @MemoryQuery() query: WebhookDeliveriesQuery): Promise<WebhookOutboxResponse> {
    return this.webhooks.outbox(org, query.documentId);
  }
}
