import { Controller, Get, Query } from '@nestjs/common';
import { Operation } from '../openapi/operation.decorator';
import { ToolListItem, ToolRegistry } from './tool-registry.service';

@Controller('experimental/tool')
export class ToolsController {
  constructor(private readonly registry: ToolRegistry) {}

  @Get('ids')
  @Operation('tool.ids')
  ids(): string[] {
    return this.registry.ids();
  }

  @Get()
  @Operation('tool.list')
  list(@Query('provider') provider: string, @Query('model') model: string): ToolListItem[] {
    return this.registry.list(provider, model);
  }
}
