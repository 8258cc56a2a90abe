import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { CurrentInstance } from '../common/current-instance.decorator';
import { Operation } from '../openapi/operation.decorator';
import type { Instance } from '../projects/instance.service';
import { located } from '../projects/location';
import type { Located } from '../projects/location';
import { ClientLogService } from './client-log.service';
import type { ClientLogEntry } from './client-log.service';
import { FileBrowserService } from './file-browser.service';
import type { FileContent, FileNode, FileStatus } from './file-browser.service';
import { FileSearchService } from './file-search.service';
import type { FileSystemEntry } from './file-search.service';
import type { TextMatch } from './line-matcher';

/** Default number of `find.files` results (the reference's route default). */
const FIND_FILES_DEFAULT_LIMIT = 10;
/** Default number of `/api/fs/find` results (its clients always send one: the 1.18 TUI asks for 20). */
const FS_FIND_DEFAULT_LIMIT = 50;

@Controller()
export class FilesController {
  constructor(
    private readonly search: FileSearchService,
    private readonly browser: FileBrowserService,
  ) {}

  @Get('find')
  @Operation('find.text')
  findText(@CurrentInstance() instance: Instance, @Query('pattern') pattern: string): Promise<TextMatch[]> {
    return this.search.text(instance, pattern);
  }

  @Get('find/file')
  @Operation('find.files')
  findFiles(
    @CurrentInstance() instance: Instance,
    @Query('query') query: string,
    @Query('dirs') dirs?: 'true' | 'false',
    @Query('type') type?: 'file' | 'directory',
    @Query('limit') limit?: string,
  ): Promise<string[]> {
    const kind = type ?? (dirs === 'false' ? 'file' : 'all');
    return this.search.files(instance, query, {
      kind,
      limit: limit === undefined ? FIND_FILES_DEFAULT_LIMIT : Number(limit),
    });
  }

  /** opencode's v2 API: the 1.18 TUI's `@` completion. */
  @Get('api/fs/find')
  @Operation('v2.fs.find')
  async findEntries(
    @CurrentInstance() instance: Instance,
    @Query('query') query: string,
    @Query('type') type?: 'file' | 'directory',
    @Query('limit') limit?: string,
  ): Promise<Located<FileSystemEntry[]>> {
    return located(instance, await this.search.entries(instance, query, { type, limit: limit ?? FS_FIND_DEFAULT_LIMIT }));
  }

  /** Workspace symbols come from language servers, and Keel runs none: always empty. */
  @Get('find/symbol')
  @Operation('find.symbols')
  findSymbols(): never[] {
    return [];
  }

  @Get('file')
  @Operation('file.list')
  list(@CurrentInstance() instance: Instance, @Query('path') path: string): Promise<FileNode[]> {
    return this.browser.list(instance, path);
  }

  @Get('file/content')
  @Operation('file.read')
  read(@CurrentInstance() instance: Instance, @Query('path') path: string): Promise<FileContent> {
    return this.browser.read(instance, path);
  }

  @Get('file/status')
  @Operation('file.status')
  status(@CurrentInstance() instance: Instance): Promise<FileStatus[]> {
    return this.browser.status(instance);
  }
}

/** The reference's tooling status routes. Keel runs no language servers, formatters or MCP servers. */
@Controller()
export class ToolingController {
  constructor(private readonly clientLog: ClientLogService) {}

  @Post('log')
  @Operation('app.log')
  log(@Body() entry: ClientLogEntry): boolean {
    this.clientLog.write(entry);
    return true;
  }

  @Get('lsp')
  @Operation('lsp.status')
  lspStatus(): never[] {
    return [];
  }

  @Get('formatter')
  @Operation('formatter.status')
  formatterStatus(): never[] {
    return [];
  }

  @Get('mcp')
  @Operation('mcp.status')
  mcpStatus(): Record<string, never> {
    return {};
  }
}
