import { ApiProperty } from '@nestjs/swagger';
import { Text } from '../../validation';

/** The webhook outbox (a Keel addition): its query and answer. */
export class WebhookDeliveriesQuery {
  @Text({ description: 'Only deliveries about this document' }, { min: 1, max: 255 }) documentId?: string;
}

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
