import { Module } from '@nestjs/common';
import { ConfigModule } from '../config/config.module';
import { SkillsModule } from '../skills/skills.module';
import { CommandsController } from './commands.controller';
import { CommandService } from './command.service';

/** Built-in, config and markdown slash commands and skills: `GET /command`, and `CommandService` for `session.command`. */
@Module({
  imports: [ConfigModule, SkillsModule],
  controllers: [CommandsController],
  providers: [CommandService],
  exports: [CommandService],
})
export class CommandsModule {}
