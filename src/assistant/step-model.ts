import type { LanguageModel } from 'ai';
import { DomainError } from '../common/errors';
import type { AssistantMessage, UserMessage } from '../messages/message.entity';
import type { MessageService } from '../messages/message.service';
import type { Instance } from '../projects/instance.service';
import { createLanguageModel } from '../providers/language-model';
import type { ModelRef, ProviderService, ResolvedModel } from '../providers/provider.service';
import type { SessionService } from '../sessions/session.service';
import type { NamedError } from './named-error';

/** A new reply to `parent` by `agent` on `model`, nothing spent yet (`summary` for a compaction's). */
export function newAssistantMessage(
  id: string,
  instance: Instance,
  parent: UserMessage,
  agent: string,
  model: ModelRef,
  summary = false,
): AssistantMessage {
  return {
    id,
    sessionID: parent.sessionID,
    role: 'assistant',
    time: { created: Date.now() },
    parentID: parent.id,
    modelID: model.modelID,
    providerID: model.providerID,
    mode: agent,
    agent,
    path: { cwd: instance.directory, root: instance.worktree },
    ...(summary ? { summary } : {}),
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  };
}

/**
 * The model a step (a turn's or a compaction's) runs on: `choose` names it, the reply records it, then
 * it is resolved and built. When any of that fails, the reply ends with an error saying what to
 * configure, `session.error` is published, and the step answers 'stop'.
 */
export async function resolveStepModel(
  services: { messages: MessageService; sessions: SessionService; providers: ProviderService },
  instance: Instance,
  assistant: AssistantMessage,
  choose: () => ModelRef | Promise<ModelRef>,
): Promise<{ model: ResolvedModel; languageModel: LanguageModel } | 'stop'> {
  try {
    const ref = await choose();
    assistant.providerID = ref.providerID;
    assistant.modelID = ref.modelID;
    const model = await services.providers.resolveModel(instance, ref.providerID, ref.modelID);
    return { model, languageModel: createLanguageModel(model) };
  } catch (error) {
    const named: NamedError =
      error instanceof DomainError && (error.errorName === 'ProviderInitError' || error.errorName === 'ProviderAuthError')
        ? { name: 'ProviderAuthError', data: { providerID: assistant.providerID, message: error.message } }
        : { name: 'UnknownError', data: { message: error instanceof Error ? error.message : String(error) } };
    assistant.error = named;
    assistant.time.completed = Date.now();
    await services.messages.updateMessage(assistant, { directory: instance.directory });
    const event = { sessionID: assistant.sessionID, error: named };
    await services.sessions.publish(assistant.sessionID, 'session.error', event, instance.directory);
    return 'stop';
  }
}
