import { Controller, Get } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { MemoryApiAuth } from '../memory-auth.decorator';
import { MemoryOperation } from '../memory-operation.decorator';
import { MemoryQuery } from '../validation';
import { WebhookDispatcher } from './webhook-dispatcher';
import { Org } from '../organizations/org.decorator';
import { DocumentStatusEvent, WebhookDeliveriesQuery, WebhookOutboxResponse } from './dto/webhook.dto';

/** Keel addition: the webhook outbox (deliveries not yet accepted by their receiver), for the console. */
@ApiTags('memory: webhooks')
// Documented for clients of the event stream and of webhooks, which no operation answers with.
@ApiExtraModels(DocumentStatusEvent)
@MemoryApiAuth()
@ApiResponse({ status: 400, type: ErrorBody })
@ApiResponse({ status: 401, type: ErrorBody })
@Controller('v3/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookDispatcher) {}

  @Get('deliveries')
  @MemoryOperation('webhooks.deliveries', 'Webhook deliveries waiting or retrying (Keel addition)', { type: WebhookOutboxResponse })
  deliveries(@Org() org: string, @MemoryQuery() query: WebhookDeliveriesQuery): Promise<WebhookOutboxResponse> {
    return this.webhooks.outbox(org, query.documentId);
  }
}
