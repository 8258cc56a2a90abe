import { Injectable, Logger } from '@nestjs/common';
import { AgentService } from '../agents/agent.service';
import type { MessageWithParts } from '../messages/message.entity';
import type { Instance } from '../projects/instance.service';
import { aiSdk } from '../providers/ai-sdk';
import { ProviderService } from '../providers/provider.service';
import type { ModelRef } from '../providers/provider.service';
import type { Session } from '../sessions/session.entity';
import { SessionService } from '../sessions/session.service';

/** The title a session is created with when none is given: only those are replaced. */
const DEFAULT_TITLE = /^(New session|Child session) - \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MAX_TITLE = 100;

/** The first meaningful line of a model's answer, without reasoning tags or quotes. */
function cleanTitle(text: string): string | undefined {
  const line = text
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .split('\n')
    .map((l) => l.trim().replace(/^["'`]+|["'`]+$/g, ''))
    .find((l) => l.length > 0);
  if (!line) return undefined;
  return line.length > MAX_TITLE ? `${line.slice(0, MAX_TITLE - 3)}...` : line;
}

/** Names default-titled root sessions from their first message with the small model (fire and forget). */
@Injectable()
export class TitleGenerator {
  private readonly logger = new Logger('TitleGenerator');

  constructor(
    private readonly sessions: SessionService,
    private readonly providers: ProviderService,
    private readonly agents: AgentService,
  ) {}

  async generate(instance: Instance, session: Session, message: MessageWithParts, fallback: ModelRef, signal: AbortSignal): Promise<void> {
    if (session.parentID || !DEFAULT_TITLE.test(session.title)) return;
    const text = message.parts
      .filter((p) => p.type === 'text' && !p.synthetic && !p.ignored)
      .map((p) => String(p.text))
      .join('\n')
      .trim();
    if (!text) return;
    try {
      const ref = (await this.providers.smallModel(instance).catch(() => undefined)) ?? fallback;
      const model = await this.providers.languageModel(instance, ref.providerID, ref.modelID);
      const agent = await this.agents.get(instance, 'title');
      const result = aiSdk().streamText({
        model,
        system: agent?.prompt ?? 'You write a title for a conversation from its first message. Reply with the title only.',
        messages: [{ role: 'user', content: text }],
        maxRetries: 0,
        abortSignal: signal,
        onError: () => undefined,
      });
      const title = cleanTitle(await result.text);
      const current = await this.sessions.get(session.id);
      if (title && DEFAULT_TITLE.test(current.title)) await this.sessions.update(session.id, { title });
    } catch (error) {
      this.logger.warn({ msg: 'title generation failed', sessionID: session.id, error: String(error) });
    }
  }
}
