import { Module } from '@nestjs/common';
import { ConfigModule } from '../config/config.module';
import { AgentsController } from './agents.controller';
import { AgentService } from './agent.service';

/** Built-in, config and markdown agents: `GET /agent`, and `AgentService` for the assistant loop. */
@Module({
  imports: [ConfigModule],
  controllers: [AgentsController],
  providers: [AgentService],
  exports: [AgentService],
})
export class AgentsModule {}
