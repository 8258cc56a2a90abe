import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConversationsController, DocumentsController } from './documents/documents.controller';
import { DocumentsService } from './documents/documents.service';
import { FileUploadService } from './documents/file-upload.service';
import { MemoryChunk } from './documents/memory-chunk.entity';
import { MemoryDocument, MemoryDocumentFile } from './documents/memory-document.entity';
import { WebhooksController } from './pipeline/webhooks.controller';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { INGESTION_SETTINGS, IngestionSettings } from './ingestion-settings';
import { MemoriesController } from './memories/memories.controller';
import { MemoriesService } from './memories/memories.service';
import { MemoryEntry } from './memories/memory-entry.entity';
import { MemoryModel } from './memories/memory-model';
import { ProfileBucketsController } from './memories/profile-buckets.controller';
import { EmbeddingProvider } from './pipeline/embedding-provider';
import { ExtractionSandbox } from './pipeline/extraction-sandbox';
import { PipelineWorker } from './pipeline/pipeline-worker';
import { PipelineWorkerBeat } from './pipeline/pipeline-worker.entity';
import { StatusPublisher } from './pipeline/status-publisher';
import { WebhookDispatcher } from './pipeline/webhook-dispatcher';
import { FullTextIndex } from './search/full-text-index';
import { SearchController } from './search/search.controller';
import { SearchService } from './search/search.service';
import { SqliteVectorIndex } from './search/sqlite-vector-index';
import { UsearchVectorIndex } from './search/usearch-vector-index';
import { VectorIndex } from './search/vector-index';
import { EventBus } from '../events/event-bus.service';
import { OrganizationSettings } from './settings/organization-settings.entity';
import { OrganizationSettingsService } from './settings/organization-settings.service';
import { SettingsController } from './settings/settings.controller';
import { IngestionStore } from './store';

/** The memory surface (supermemory v3/v4): documents, the pipeline, search, memories, profiles and settings. */
@Module({
  imports: [TypeOrmModule.forFeature([MemoryDocument, MemoryDocumentFile, MemoryChunk, MemoryEntry, PipelineWorkerBeat, OrganizationSettings])],
  controllers: [DocumentsController, ConversationsController, SearchController, MemoriesController, ProfileBucketsController, SettingsController, WebhooksController],
  providers: [
    { provide: INGESTION_SETTINGS, inject: [KEEL_SETTINGS], useFactory: (keel: KeelSettings) => keel.memory },
    IngestionStore,
    OrganizationSettingsService,
    FullTextIndex,
    {
      // sqlite-vec inside the one process's database file (usearch beside it for large tables); usearch in each replica on PostgreSQL.
      provide: VectorIndex,
      useFactory: (store: IngestionStore, bus: EventBus, settings: IngestionSettings) => {
        const approximate = new UsearchVectorIndex(store, bus, !!settings.embeddingUrl);
        return store.dialect === 'sqlite' ? new SqliteVectorIndex(store.query, approximate) : approximate;
      },
      inject: [IngestionStore, EventBus, INGESTION_SETTINGS],
    },
    StatusPublisher,
    WebhookDispatcher,
    DocumentsService,
    FileUploadService,
    MemoriesService,
    MemoryModel,
    SearchService,
    EmbeddingProvider,
    ExtractionSandbox,
    PipelineWorker,
  ],
})
export class IngestionModule {}
