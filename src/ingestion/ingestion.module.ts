import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConversationsController, DocumentsController } from './documents/documents.controller';
import { DocumentsService } from './documents/documents.service';
import { FileUploadService } from './documents/file-upload.service';
import { MemoryChunk } from './documents/memory-chunk.entity';
import { MemoryDocument, MemoryDocumentFile } from './documents/memory-document.entity';
import { INGESTION_SETTINGS, loadIngestionSettings } from './ingestion-settings';
import { MemoriesController } from './memories/memories.controller';
import { MemoriesService } from './memories/memories.service';
import { MemoryEntry } from './memories/memory-entry.entity';
import { MemoryModel } from './memories/memory-model';
import { ProfileBucketsController } from './memories/profile-buckets.controller';
import { EmbeddingProvider } from './pipeline/embedding-provider';
import { PipelineWorker } from './pipeline/pipeline-worker';
import { PipelineWorkerBeat } from './pipeline/pipeline-worker.entity';
import { StatusPublisher } from './pipeline/status-publisher';
import { WebhookDispatcher } from './pipeline/webhook-dispatcher';
import { FullTextIndex } from './search/full-text-index';
import { SearchController } from './search/search.controller';
import { SearchService } from './search/search.service';
import { VectorIndex } from './search/vector-index';
import { IngestionStore } from './store';

/** The memory surface (supermemory v3/v4): documents, the pipeline, search, memories and profiles. */
@Module({
  imports: [TypeOrmModule.forFeature([MemoryDocument, MemoryDocumentFile, MemoryChunk, MemoryEntry, PipelineWorkerBeat])],
  controllers: [DocumentsController, ConversationsController, SearchController, MemoriesController, ProfileBucketsController],
  providers: [
    { provide: INGESTION_SETTINGS, useFactory: () => loadIngestionSettings() },
    IngestionStore,
    FullTextIndex,
    VectorIndex,
    StatusPublisher,
    WebhookDispatcher,
    DocumentsService,
    FileUploadService,
    MemoriesService,
    MemoryModel,
    SearchService,
    EmbeddingProvider,
    PipelineWorker,
  ],
})
export class IngestionModule {}
