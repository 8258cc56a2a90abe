import { Injectable } from '@nestjs/common';
import { AgentService } from '../agents/agent.service';
import { BusyError } from '../common/errors';
import { MessageService } from '../messages/message.service';
import type { Instance } from '../projects/instance.service';
import { ProviderService } from '../providers/provider.service';
import { SessionService } from '../sessions/session.service';
import { RevertService } from '../snapshots/revert.service';
import { SessionCompaction } from './compaction.service';
import { findLast, PromptLoop } from './prompt-loop.service';

export interface SummarizeInput {
  providerID: string;
  modelID: string;
  auto?: boolean;
}

/**
 * `POST /session/{id}/summarize`: a compaction request with the agent of the last user message,
 * then the loop runs it to the end. A busy session or an unknown model is refused before anything is written.
 */
@Injectable()
export class CompactionRunner {
  constructor(
    private readonly loop: PromptLoop,
    private readonly compaction: SessionCompaction,
    private readonly sessions: SessionService,
    private readonly messages: MessageService,
    private readonly agents: AgentService,
    private readonly reverts: RevertService,
    private readonly providers: ProviderService,
  ) {}

  async summarize(instance: Instance, sessionID: string, input: SummarizeInput): Promise<true> {
    await this.sessions.get(sessionID);
    if (this.loop.isBusy(sessionID)) throw new BusyError(`Session ${sessionID} is busy`, { sessionID });
    // An unknown model is the reference's 400 ProviderModelNotFoundError, answered here before anything is written.
    await this.providers.resolveModel(instance, input.providerID, input.modelID);
    await this.reverts.cleanup(sessionID);
    const lastUser = findLast(await this.messages.list(sessionID), 'user')?.info;
    const agent = lastUser?.role === 'user' ? lastUser.agent : (await this.agents.defaultAgent(instance)).name;
    await this.compaction.create(instance, sessionID, { agent, model: { providerID: input.providerID, modelID: input.modelID }, auto: input.auto ?? false });
    await this.loop.loop(instance, sessionID);
    return true;
  }
}
