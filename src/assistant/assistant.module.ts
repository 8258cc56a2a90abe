import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { CommandsModule } from '../commands/commands.module';
import { ConfigModule } from '../config/config.module';
import { MessagesModule } from '../messages/messages.module';
import { PermissionsModule } from '../permissions/permissions.module';
import { ProvidersModule } from '../providers/providers.module';
import { SessionsModule } from '../sessions/sessions.module';
import { SnapshotsModule } from '../snapshots/snapshots.module';
import { ToolsModule } from '../tools/tools.module';
import { AssistantController } from './assistant.controller';
import { CommandRunner } from './command-runner.service';
import { CompactionRunner } from './compaction-runner.service';
import { SessionCompaction } from './compaction.service';
import { PromptLoop } from './prompt-loop.service';
import { SessionSummary } from './session-summary.service';
import { ShellRunner } from './shell-runner.service';
import { StreamProcessor } from './stream-processor';
import { TitleGenerator } from './title-generator';

/** The assistant turn: prompt loop, stream processor, shell, commands, abort, compaction, the session diff. */
@Module({
  imports: [SessionsModule, MessagesModule, PermissionsModule, ConfigModule, ProvidersModule, AgentsModule, CommandsModule, ToolsModule, SnapshotsModule],
  controllers: [AssistantController],
  providers: [PromptLoop, StreamProcessor, TitleGenerator, ShellRunner, CommandRunner, SessionCompaction, SessionSummary, CompactionRunner],
  exports: [PromptLoop],
})
export class AssistantModule {}
