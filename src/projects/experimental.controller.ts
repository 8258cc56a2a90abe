import { Controller, Get } from '@nestjs/common';
import { Operation } from '../openapi/operation.decorator';

/**
 * Routes newer opencode clients read while starting (1.1's TUI: `/experimental/resource`; 1.18's:
 * capabilities, console state and workspaces), answered as their own server answers when the
 * feature is absent, so they start against Keel instead of logging 404s. Keel has no MCP servers,
 * no background subagents, no opencode Console account and no remote workspaces: each answer is
 * that feature's honest empty state.
 */
@Controller('experimental')
export class ExperimentalController {
  @Get('resource')
  @Operation('experimental.resource.list')
  resources(): Record<string, never> {
    return {};
  }

  @Get('capabilities')
  @Operation('experimental.capabilities.get')
  capabilities(): { backgroundSubagents: boolean } {
    return { backgroundSubagents: false };
  }

  @Get('console')
  @Operation('experimental.console.get')
  console(): { consoleManagedProviders: string[]; switchableOrgCount: number } {
    return { consoleManagedProviders: [], switchableOrgCount: 0 };
  }

  @Get('workspace')
  @Operation('experimental.workspace.list')
  workspaces(): never[] {
    return [];
  }

  @Get('workspace/status')
  @Operation('experimental.workspace.status')
  workspaceStatus(): never[] {
    return [];
  }
}
