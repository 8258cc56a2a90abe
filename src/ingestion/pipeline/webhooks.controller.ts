import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorBody } from '../documents/dto/document.dto';
import { MemoryApiAuth } from '../memory-auth.decorator';
import { Checker } from '../validation';
import { WebhookDispatcher } from './webhook-dispatcher';

export class WebhookDeliveryView {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'Receiver URL without user info or query' }) receiver!: string;
  @ApiProperty() type!: string;
  @ApiProperty({ type: 'string', nullable: true }) documentId!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) status!: string | null;
  @ApiProperty({ type: 'integer', description: 'Attempts made so far' }) attempts!: number;
  @ApiProperty({ format: 'date-time' }) nextAttemptAt!: string;
  @ApiProperty({ type: 'string', nullable: true }) lastError!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class WebhookOutboxResponse {
  @ApiProperty({ type: [String] }) receivers!: string[];
  @ApiProperty({ type: 'integer' }) maxAttempts!: number;
  @ApiProperty({ type: 'integer', description: 'Deliveries in the outbox (matching documentId when given)' }) total!: number;
  @ApiProperty({ type: [WebhookDeliveryView], description: 'The oldest 100' }) deliveries!: WebhookDeliveryView[];
}

/** Keel addition: the webhook outbox (deliveries not yet accepted by their receiver), for the console. */
@ApiTags('memory: webhooks')
@MemoryApiAuth()
@ApiResponse({ status: 400, type: ErrorBody })
@ApiResponse({ status: 401, type: ErrorBody })
@Controller('v3/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookDispatcher) {}

  @Get('deliveries')
  @ApiOperation({ operationId: 'webhooks.deliveries', summary: 'Webhook deliveries waiting or retrying (Keel addition)' })
  @ApiQuery({ name: 'documentId', required: false, description: 'Only deliveries about this document' })
  @ApiResponse({ status: 200, type: WebhookOutboxResponse })
  deliveries(@Query('documentId') documentId: unknown) {
    const check = new Checker();
    const id = check.string(documentId, ['documentId'], { min: 1, max: 255 });
    check.throwIfAny({ documentId });
    return this.webhooks.outbox(id);
  }
}
