import type { Type } from '@nestjs/common';
import { MemoryModule } from './memory/memory.module';
import { RoutingModule } from './routing/routing.module';
import { ConfigModule } from './config/config.module';
import { ProvidersModule } from './providers/providers.module';
import { CommandsModule } from './commands/commands.module';
import { AgentsModule } from './agents/agents.module';
import { ToolsModule } from './tools/tools.module';
import { PtyModule } from './pty/pty.module';
import { MessagesModule } from './messages/messages.module';
import { PermissionsModule } from './permissions/permissions.module';
import { SessionsModule } from './sessions/sessions.module';
import { SnapshotsModule } from './snapshots/snapshots.module';
import { AssistantModule } from './assistant/assistant.module';
import { FilesModule } from './files/files.module';
import { ShareModule } from './share/share.module';
import { VcsModule } from './vcs/vcs.module';
import { SkillsModule } from './skills/skills.module';
import { ConsoleAuthModule } from './console-auth/console-auth.module';

/**
 * The feature modules of the three surfaces. Each module owns its folder; adding one here is
 * the only edit outside it.
 */
export const FEATURE_MODULES: Type[] = [SessionsModule, MessagesModule, PermissionsModule, SnapshotsModule, ConfigModule, ProvidersModule, CommandsModule, AgentsModule, ToolsModule, PtyModule, RoutingModule, MemoryModule, AssistantModule, FilesModule, ShareModule, VcsModule, SkillsModule, ConsoleAuthModule];
