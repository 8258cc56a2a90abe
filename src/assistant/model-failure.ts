import { DomainError } from '../common/errors';
import type { AssistantMessage } from '../messages/message.entity';
import type { MessageService } from '../messages/message.service';
import type { Instance } from '../projects/instance.service';
import type { SessionService } from '../sessions/session.service';
import type { NamedError } from './named-error';

/**
 * Ends an assistant message whose model could not be resolved (a turn's step or a compaction):
 * its error says what to configure, and `session.error` is published.
 */
export async function failOnModelResolution(
  services: { messages: MessageService; sessions: SessionService },
  instance: Instance,
  assistant: AssistantMessage,
  error: unknown,
): Promise<'stop'> {
  const named: NamedError =
    error instanceof DomainError && (error.errorName === 'ProviderInitError' || error.errorName === 'ProviderAuthError')
      ? { name: 'ProviderAuthError', data: { providerID: assistant.providerID, message: error.message } }
      : { name: 'UnknownError', data: { message: error instanceof Error ? error.message : String(error) } };
  assistant.error = named;
  assistant.time.completed = Date.now();
  await services.messages.updateMessage(assistant, { directory: instance.directory });
  await services.sessions.publish(assistant.sessionID, 'session.error', { sessionID: assistant.sessionID, error: named }, instance.directory);
  return 'stop';
}
