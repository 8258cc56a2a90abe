import { useEffect, useState } from 'react';
import { Alert, Badge, Container, Group, Stack, Text, Title } from '@mantine/core';
import { applyEvent, eventSessionID, readEvents, totals } from '../conversation/model';
import type { MessageEntry, Session, SessionEvent } from '../conversation/model';
import { MessageList } from '../conversation/MessageList';

interface SharedSession {
  session: Session;
  messages: MessageEntry[];
}
interface SharedView extends SharedSession {
  subtasks: SharedSession[];
}

type Status = 'connecting' | 'live' | 'reconnecting' | 'revoked';

/** Applies one share event to the view: messages of the session or a subtask, session updates, new subtasks. */
function applyShareEvent(view: SharedView, event: SessionEvent): SharedView {
  const sessionID = eventSessionID(event);
  if (!sessionID) return view;
  if (event.type === 'session.created' || event.type === 'session.updated') {
    const info = event.properties.info as Session;
    if (info.id === view.session.id) return { ...view, session: info };
    const known = view.subtasks.some((s) => s.session.id === info.id);
    if (known)
      return {
        ...view,
        subtasks: view.subtasks.map((s) => (s.session.id === info.id ? { ...s, session: info } : s)),
      };
    return { ...view, subtasks: [...view.subtasks, { session: info, messages: [] }] };
  }
  if (sessionID === view.session.id) {
    const messages = applyEvent(view.messages, event);
    return messages === view.messages ? view : { ...view, messages };
  }
  return {
    ...view,
    subtasks: view.subtasks.map((s) =>
      s.session.id === sessionID ? { ...s, messages: applyEvent(s.messages, event) } : s,
    ),
  };
}

export function SharePage({ shareID }: { shareID: string }) {
  const [view, setView] = useState<SharedView>();
  const [status, setStatus] = useState<Status>('connecting');

  useEffect(() => {
    const controller = new AbortController();
    let revoked = false;
    async function follow(): Promise<void> {
      while (!controller.signal.aborted && !revoked) {
        try {
          const response = await fetch(`/share/${encodeURIComponent(shareID)}/event`, {
            signal: controller.signal,
          });
          if (response.status === 404) {
            revoked = true;
            break;
          }
          let pending: SessionEvent[] | undefined = [];
          await readEvents<SessionEvent>(response, (event) => {
            if (event.type === 'server.connected') {
              // Load (or reload after a gap) what is there, then apply what came meanwhile.
              pending = [];
              void fetch(`/share/${encodeURIComponent(shareID)}/data`, { signal: controller.signal }).then(
                async (answer) => {
                  if (answer.status === 404) {
                    revoked = true;
                    setStatus('revoked');
                    return;
                  }
                  let loaded = (await answer.json()) as SharedView;
                  for (const queued of pending ?? []) loaded = applyShareEvent(loaded, queued);
                  pending = undefined;
                  setView(loaded);
                  setStatus('live');
                },
              );
              return;
            }
            if (event.type === 'server.heartbeat') return;
            if (event.type === 'share.revoked') {
              revoked = true;
              return;
            }
            if (pending) pending.push(event);
            else setView((current) => (current ? applyShareEvent(current, event) : current));
          });
        } catch {
          if (controller.signal.aborted) return;
        }
        if (revoked) break;
        setStatus('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
      if (revoked) setStatus('revoked');
    }
    void follow();
    return () => controller.abort();
  }, [shareID]);

  // The conversation the server rendered goes once the live one (or the revoked notice) is drawn.
  useEffect(() => {
    if (view || status === 'revoked') document.getElementById('share-static')?.remove();
  }, [view, status]);

  if (status === 'revoked')
    return (
      <Container size="md" py="xl">
        <Alert color="orange" title="No longer shared" role="status">
          This session is no longer shared: its owner stopped sharing it.
        </Alert>
      </Container>
    );
  if (!view) return null;
  return (
    <Container size="md" py="md" component="main">
      <SessionSection shared={view} level={1} status={status} />
      {view.subtasks.map((s) => (
        <SessionSection key={s.session.id} shared={s} level={2} />
      ))}
    </Container>
  );
}

function SessionSection({ shared, level, status }: { shared: SharedSession; level: 1 | 2; status?: Status }) {
  const { model, tokens, cost } = totals(shared.messages);
  return (
    <Stack gap="sm" mb="xl" component="section" aria-label={shared.session.title}>
      <Stack gap={4}>
        <Group justify="space-between" wrap="wrap">
          <Title order={level} size={level === 1 ? 'h2' : 'h3'}>
            {shared.session.title}
          </Title>
          {status && (
            <Badge color={status === 'live' ? 'teal.9' : 'gray.7'} variant="filled" role="status">
              {status === 'live' ? 'Live' : 'Reconnecting…'}
            </Badge>
          )}
        </Group>
        <Text size="sm" className="keel-muted">
          {model ? `Model ${model} · ` : ''}
          {tokens.toLocaleString('en')} tokens · ${cost.toFixed(4)}
        </Text>
      </Stack>
      <MessageList messages={shared.messages} label={`Conversation: ${shared.session.title}`} />
    </Stack>
  );
}
