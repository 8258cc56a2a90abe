import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

/**
 * Routes newer opencode clients read while starting (1.1's TUI: `/experimental/resource`; 1.18's:
 * capabilities, console state and workspaces), answered as their own server answers when the
 * feature is absent, so they start against Keel instead of logging 404s. Keel has no MCP servers,
 * no background subagents, no opencode Console account and no remote workspaces: each answer is
 * that feature's honest empty state.
 */
@ApiTags('experimental')
@Controller('experimental')
export class ExperimentalController {
  @Get('resource')
  @ApiOperation({ operationId: 'experimental.resource.list', summary: 'MCP resources of connected servers (none: Keel runs no MCP servers)' })
  @ApiOkResponse({ schema: { type: 'object', additionalProperties: { type: 'object' } } })
  resources(): Record<string, never> {
    return {};
  }

  @Get('capabilities')
  @ApiOperation({ operationId: 'experimental.capabilities.get', summary: 'Experimental features this server enables' })
  @ApiOkResponse({ schema: { type: 'object', properties: { backgroundSubagents: { type: 'boolean' } }, required: ['backgroundSubagents'] } })
  capabilities(): { backgroundSubagents: boolean } {
    return { backgroundSubagents: false };
  }

  @Get('console')
  @ApiOperation({ operationId: 'experimental.console.get', summary: 'opencode Console org and the providers it manages (none)' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: {
        consoleManagedProviders: { type: 'array', items: { type: 'string' } },
        activeOrgName: { type: 'string' },
        switchableOrgCount: { type: 'integer', minimum: 0 },
      },
      required: ['consoleManagedProviders', 'switchableOrgCount'],
    },
  })
  console(): { consoleManagedProviders: string[]; switchableOrgCount: number } {
    return { consoleManagedProviders: [], switchableOrgCount: 0 };
  }

  @Get('workspace')
  @ApiOperation({ operationId: 'experimental.workspace.list', summary: 'Remote workspaces (none: sessions run in the server’s directories)' })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'object' } } })
  workspaces(): never[] {
    return [];
  }

  @Get('workspace/status')
  @ApiOperation({ operationId: 'experimental.workspace.status', summary: 'Connection status of each remote workspace (none)' })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'object' } } })
  workspaceStatus(): never[] {
    return [];
  }
}
