import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DOCUMENT_STATUSES } from '../../documents/memory-document.entity';
import { Text } from '../../validation';

/** The webhook outbox (a Keel addition): its query and answer. */
export class WebhookDeliveriesQuery {
  @Text({ description: 'Only deliveries about this document' }, { min: 1, max: 255 }) documentId?: string;
}

class WebhookDeliveryView {
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

/**
 * A document's pipeline transition: the `properties` of a `memory.document.status` event on
 * `/global/event`, and the `data` of a webhook delivery of that type.
 */
export class DocumentStatusEvent {
  @ApiProperty() id!: string;
  @ApiProperty({ type: 'string', nullable: true }) customId!: string | null;
  // Typed as the columns' text here (the worker writes them from rows); documented as their values.
  @ApiProperty({ enum: DOCUMENT_STATUSES }) status!: string;
  @ApiProperty({ enum: ['dreaming', 'done'], description: 'Whether memories are still being extracted' }) dreamingStatus!: string;
  @ApiPropertyOptional({ description: 'Why the document failed' }) error?: string;
  @ApiPropertyOptional({ enum: ['model', 'deterministic'], description: 'On the transition that ends dreaming: which extractor produced the memories' })
  memoryExtractor?: 'model' | 'deterministic';
  @ApiPropertyOptional({ description: 'Why the configured memory model was not used (the facts came from the deterministic extractor)' })
  extractionFallback?: string;
  @ApiProperty({ format: 'date-time' }) time!: string;
}
