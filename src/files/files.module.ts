import { Module } from '@nestjs/common';
import { ClientLogService } from './client-log.service';
import { FileBrowserService } from './file-browser.service';
import { FileSearchService } from './file-search.service';
import { FilesController, ToolingController } from './files.controller';
import { ProjectFileIndex } from './project-file-index';

/**
 * The instance directory as the clients browse it (`/find*`, `/file*`), confined to that directory,
 * plus the tooling status routes (`/log`, `/lsp`, `/formatter`, `/mcp`).
 */
@Module({
  controllers: [FilesController, ToolingController],
  providers: [ProjectFileIndex, FileSearchService, FileBrowserService, ClientLogService],
})
export class FilesModule {}
