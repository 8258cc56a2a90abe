import { ContainerTagsController } from './container-tags/container-tags.controller';
import { Module } from '@nestjs/common';
import { join } from 'node:path';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConversationsController, DocumentsController } from './documents/documents.controller';
import { DocumentIngestService } from './documents/document-ingest.service';
import { DocumentQueryService } from './documents/document-query.service';
import { DocumentRepository } from './documents/document.repository';
import { MemoryChunk } from './documents/memory-chunk.entity';
import { MemoryDocument, MemoryDocumentFile } from './documents/memory-document.entity';
import { WebhooksController } from './pipeline/webhooks.controller';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { INGESTION_SETTINGS } from './ingestion-settings';
import { MemoriesController } from './memories/memories.controller';
import { MemoryEntryRepository } from './memories/memory-entry.repository';
import { MemoriesService } from './memories/memories.service';
import { MemoryEntry } from './memories/memory-entry.entity';
import { MemoryModel } from './memories/memory-model';
import { ProfileBucketsController } from './memories/profile-buckets.controller';
import { EmbeddingProvider } from './pipeline/embedding-provider';
import { ExtractionSandbox } from './pipeline/extraction-sandbox';
import { PipelineWorker } from './pipeline/pipeline-worker';
import { PipelineWorkerBeat } from './pipeline/pipeline-worker.entity';
import { PipelineQueueRepository } from './pipeline/pipeline-queue.repository';
import { StatusPublisher } from './pipeline/status-publisher';
import { WebhookOutboxRepository } from './pipeline/webhook-outbox.repository';
import { WebhookDispatcher } from './pipeline/webhook-dispatcher';
import { FullTextIndex } from './search/full-text-index';
import { SearchController } from './search/search.controller';
import { SearchService } from './search/search.service';
import { SqliteVectorIndex } from './search/sqlite-vector-index';
import { UsearchVectorIndex } from './search/usearch-vector-index';
import { VectorIndex } from './search/vector-index';
import { databaseIdentity } from './search/vector-index-file';
import { EventBus } from '../events/event-bus.service';
import { OrganizationSettings } from './settings/organization-settings.entity';
import { OrganizationSettingsService } from './settings/organization-settings.service';
import { SettingsController } from './settings/settings.controller';
import { IngestionStore } from './store';
import { MemoryApiKey, MemoryOrganization } from './organizations/organization.entity';
import { OrganizationsController } from './organizations/organizations.controller';
import { OrganizationRepository } from './organizations/organization.repository';
import { OrganizationsService } from './organizations/organizations.service';

/** The memory surface (supermemory v3/v4): documents, the pipeline, search, memories, profiles and settings. */
@Module({
  imports: [TypeOrmModule.forFeature([MemoryDocument, MemoryDocumentFile, MemoryChunk, MemoryEntry, PipelineWorkerBeat, OrganizationSettings, MemoryOrganization, MemoryApiKey])],
  controllers: [OrganizationsController, DocumentsController, ConversationsController, SearchController, MemoriesController, ProfileBucketsController, SettingsController, WebhooksController, ContainerTagsController],
  providers: [
    { provide: INGESTION_SETTINGS, inject: [KEEL_SETTINGS], useFactory: (keel: KeelSettings) => keel.memory },
    IngestionStore,
    OrganizationSettingsService,
    OrganizationRepository,
    OrganizationsService,
    FullTextIndex,
    {
      // sqlite-vec inside the one process's database file (usearch beside it for large tables); usearch in each replica on PostgreSQL.
      provide: VectorIndex,
      useFactory: (store: IngestionStore, bus: EventBus, keel: KeelSettings) => {
        const settings = keel.memory;
        const persistence = {
          dir: join(keel.dataDir, 'vectors'),
          model: settings.embeddingModel,
          database: keel.databaseUrl ? databaseIdentity(keel.databaseUrl) : 'sqlite',
          intervalMs: settings.vectorSaveIntervalMs,
        };
        const approximate = new UsearchVectorIndex(store, bus, !!settings.embeddingUrl, persistence);
        return store.dialect === 'sqlite' ? new SqliteVectorIndex(store.query, approximate, settings.vectorExactLimit) : approximate;
      },
      inject: [IngestionStore, EventBus, KEEL_SETTINGS],
    },
    StatusPublisher,
    WebhookOutboxRepository,
    WebhookDispatcher,
    DocumentRepository,
    DocumentQueryService,
    DocumentIngestService,
    MemoryEntryRepository,
    MemoriesService,
    MemoryModel,
    SearchService,
    EmbeddingProvider,
    ExtractionSandbox,
    PipelineQueueRepository,
    PipelineWorker,
  ],
  exports: [OrganizationsService],
})
export class MemoryModule {}
