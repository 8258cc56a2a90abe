import type { AssistantMessage, Part, UserMessage } from '../../src/messages/message.entity';
import type { MessageService } from '../../src/messages/message.service';

/**
 * Builders for stored messages and parts as the prompt loop writes them (scripted/echo model, build
 * agent), for suites that seed a conversation through MessageService instead of running a model.
 * Ids come from the service unless a test passes client-style ones.
 */
export function messageFixtures(messages: MessageService, directory: string) {
  const user = (sessionID: string, id = messages.newMessageID()): UserMessage => ({
    id,
    sessionID,
    role: 'user',
    time: { created: Date.now() },
    agent: 'build',
    model: { providerID: 'scripted', modelID: 'echo' },
  });
  const assistant = (sessionID: string, parentID: string): AssistantMessage => ({
    id: messages.newMessageID(),
    sessionID,
    role: 'assistant',
    time: { created: Date.now() },
    parentID,
    modelID: 'echo',
    providerID: 'scripted',
    mode: 'build',
    agent: 'build',
    path: { cwd: directory, root: directory },
    cost: 0,
    tokens: { input: 1, output: 2, reasoning: 0, cache: { read: 0, write: 0 } },
  });
  /** A part of `info` with the given type-specific fields. */
  const part = (
    info: { id: string; sessionID: string },
    fields: Record<string, unknown>,
    id = messages.newPartID(),
  ): Part => ({ id, sessionID: info.sessionID, messageID: info.id, ...fields }) as Part;
  const text = (info: { id: string; sessionID: string }, body: string, id?: string): Part =>
    part(info, { type: 'text', text: body }, id);
  return { user, assistant, part, text };
}

export type MessageFixtures = ReturnType<typeof messageFixtures>;
