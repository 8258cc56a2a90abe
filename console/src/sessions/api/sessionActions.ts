import { useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import type { Session } from '../../conversation/model';
import { useNotifiedMutation, type MutationConfig } from '../../lib/mutation';
import { sessionKeys } from './keys';
import { abortSession, shareSession } from './sessions';

// What the sessions pages do to a session (kept apart from the queries the console loads at once).

/** Creates an empty session in `directory` (the event stream adds it to the list). */
export function useCreateSession(directory: string | undefined, config: MutationConfig<void, Session> = {}) {
  return useNotifiedMutation(
    {
      mutationFn: async () =>
        unwrap(await api.POST('/session', { params: { query: { directory } }, body: {} })),
    },
    { done: (_, session) => `Session “${session.title}” created`, failed: 'Session not created' },
    config,
  );
}

type SessionAction =
  { kind: 'abort' | 'share' | 'unshare' | 'unrevert' } | { kind: 'revert' | 'fork'; messageID: string };

/** What each action's notification says, done and failed. */
const ACTION_WORDS: Record<SessionAction['kind'], [done: string, failed: string]> = {
  abort: ['Session aborted', 'Session not aborted'],
  share: ['Session shared: its link is on the page', 'Session not shared'],
  unshare: ['Session no longer shared: its link is gone', 'Session still shared'],
  // Not “reverted”: the page's own banner says that, with Unrevert beside it.
  revert: ['Rolled back to before the message', 'Not rolled back'],
  unrevert: ['Rolled back messages restored', 'Messages not restored'],
  fork: ['Session forked from the message', 'Session not forked'],
};

/**
 * What can be done to a session. The session's record in the cache becomes the answer (a fork answers
 * with the new session, which a page may open), and its status is asked for again.
 */
export function useSessionAction(
  directory: string,
  sessionID: string,
  config: MutationConfig<SessionAction, boolean | Session> = {},
) {
  const queryClient = useQueryClient();
  const query = { directory };
  const path = { sessionID };
  return useNotifiedMutation(
    {
      mutationFn: async (action: SessionAction): Promise<boolean | Session> => {
        switch (action.kind) {
          case 'abort':
            return abortSession(directory, sessionID);
          case 'share':
            return shareSession(directory, sessionID);
          case 'unshare':
            return unwrap(await api.DELETE('/session/{sessionID}/share', { params: { path, query } }));
          case 'unrevert':
            return unwrap(await api.POST('/session/{sessionID}/unrevert', { params: { path, query } }));
          case 'revert':
            return unwrap(
              await api.POST('/session/{sessionID}/revert', {
                params: { path, query },
                body: { messageID: action.messageID },
              }),
            );
          case 'fork':
            return unwrap(
              await api.POST('/session/{sessionID}/fork', {
                params: { path, query },
                body: { messageID: action.messageID },
              }),
            );
        }
      },
      onSuccess: (result, action) => {
        if (action.kind !== 'fork' && result && typeof result === 'object')
          queryClient.setQueryData(sessionKeys.session(directory, sessionID), result);
        void queryClient.invalidateQueries({ queryKey: sessionKeys.status(directory) });
      },
    },
    { done: (action) => ACTION_WORDS[action.kind][0], failed: (action) => ACTION_WORDS[action.kind][1] },
    config,
  );
}

interface Prompt {
  text: string;
  /** A chosen command, run with the text as its arguments. */
  command: string | null;
  agent: string | null;
  /** `providerID/modelID`. */
  model: string | null;
  /** The mentioned files (sent with a prompt, not with a command). */
  files: components['schemas']['FilePartInput'][];
}

/** Sends a prompt (answered on the event stream) or runs a command. */
export function useSendPrompt(
  directory: string,
  sessionID: string,
  config: MutationConfig<Prompt, void> = {},
) {
  return useNotifiedMutation(
    {
      mutationFn: async ({ text, command, agent, model, files }: Prompt) => {
        const query = { directory };
        const path = { sessionID };
        if (command) {
          unwrap(
            await api.POST('/session/{sessionID}/command', {
              params: { path, query },
              body: {
                command,
                arguments: text.trim(),
                ...(agent ? { agent } : {}),
                ...(model ? { model } : {}),
              },
            }),
          );
          return;
        }
        const [providerID, ...rest] = (model ?? '').split('/');
        unwrap(
          await api.POST('/session/{sessionID}/prompt_async', {
            params: { path, query },
            body: {
              parts: [{ type: 'text', text }, ...files],
              ...(agent ? { agent } : {}),
              ...(model ? { model: { providerID, modelID: rest.join('/') } } : {}),
            },
          }),
        );
      },
    },
    // Sent is shown by the message itself, in the conversation; only a refusal needs saying.
    { failed: 'Prompt not sent' },
    config,
  );
}
