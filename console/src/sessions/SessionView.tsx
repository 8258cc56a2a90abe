import { memo, useMemo, useState } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  CopyButton,
  Group,
  Loader,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { totals } from '../conversation/model';
import { DiffView } from '../conversation/DiffView';
import { MessageList } from '../conversation/MessageList';
import { usePermissions, useRespondToPermission } from './api/permissions';
import {
  MESSAGE_PAGE,
  useMessages,
  useSession,
  useSessionDiff,
  useSessionStatus,
  useTodos,
} from './api/sessions';
import { useSessionAction } from './api/sessionActions';
import { useSessionEvents } from './api/useSessionEvents';
import { Composer } from './Composer';

/** One session: its conversation (live), pending permissions, todos, changes, and what can be done to it. */
export function SessionView() {
  const { sessionID = '' } = useParams();
  const [params] = useSearchParams();
  const directory = params.get('directory') ?? '';
  useSessionEvents(directory);
  const session = useSession(directory, sessionID);
  // The latest page first (a long session would otherwise fetch and lay out thousands of messages
  // before showing any); earlier ones are asked for from the top of the conversation.
  const [limit, setLimit] = useState(MESSAGE_PAGE);
  const messages = useMessages(directory, sessionID, limit);
  const hasEarlier = (messages.data?.length ?? 0) >= limit;
  const status = useSessionStatus(directory);
  const busy = status.data?.[sessionID] !== undefined && status.data[sessionID].type !== 'idle';
  const navigate = useNavigate();
  const act = useSessionAction(directory, sessionID, {
    onSuccess: (result, action) => {
      if (action.kind === 'fork' && typeof result === 'object')
        void navigate(`/sessions/${result.id}?directory=${encodeURIComponent(directory)}`);
    },
  });

  const revertedFrom = session.data?.revert?.messageID;
  const visible = useMemo(
    () => (messages.data ?? []).filter((m) => !revertedFrom || m.info.id < revertedFrom),
    [messages.data, revertedFrom],
  );
  const hidden = (messages.data?.length ?? 0) - visible.length;
  const figures = totals(messages.data ?? []);

  if (session.isLoading || messages.isLoading) return <Loader aria-label="Loading session" />;
  if (session.error) return <Alert color="red">{errorMessage(session.error)}</Alert>;
  const info = session.data!;

  return (
    <Stack gap="md">
      <Stack gap={4}>
        <Anchor component={Link} to={`/sessions?directory=${encodeURIComponent(directory)}`} size="sm">
          ← Sessions
        </Anchor>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Title order={1} size="h3" style={{ overflowWrap: 'anywhere' }}>
            {info.title}
          </Title>
          <Badge
            color={busy ? 'blue.8' : 'gray.7'}
            variant="filled"
            role="status"
            aria-label={busy ? 'Working' : 'Idle'}
          >
            {busy ? 'working' : 'idle'}
          </Badge>
        </Group>
        <Text size="sm" className="keel-muted">
          {figures.model ? `${figures.model} · ` : ''}
          {figures.tokens.toLocaleString('en')} tokens · ${figures.cost.toFixed(4)}
          {hasEarlier ? ` in the latest ${messages.data?.length ?? 0} messages` : ''}
        </Text>
      </Stack>
      <Group gap="xs" wrap="wrap">
        {busy && (
          <Button color="red.9" variant="filled" onClick={() => act.mutate({ kind: 'abort' })}>
            Abort
          </Button>
        )}
        {info.share ? (
          <>
            <TextInput
              readOnly
              value={info.share.url}
              aria-label="Share link"
              w={{ base: '100%', sm: 380 }}
            />
            <CopyButton value={info.share.url}>
              {({ copied, copy }) => (
                <Button variant="default" onClick={copy}>
                  {copied ? 'Copied' : 'Copy link'}
                </Button>
              )}
            </CopyButton>
            <Button variant="default" onClick={() => act.mutate({ kind: 'unshare' })}>
              Unshare
            </Button>
          </>
        ) : (
          <Button variant="default" onClick={() => act.mutate({ kind: 'share' })}>
            Share
          </Button>
        )}
      </Group>
      {act.error && <Alert color="red">{errorMessage(act.error)}</Alert>}
      {hidden > 0 && (
        <Alert color="yellow" title="Reverted">
          <Group justify="space-between" wrap="wrap">
            <Text size="sm">
              {hidden} message{hidden === 1 ? '' : 's'} reverted.
            </Text>
            <Button size="xs" variant="default" onClick={() => act.mutate({ kind: 'unrevert' })}>
              Unrevert
            </Button>
          </Group>
        </Alert>
      )}
      {hasEarlier && (
        <Group justify="center">
          <Button
            variant="default"
            size="xs"
            loading={messages.isFetching}
            onClick={() => setLimit((n) => n + MESSAGE_PAGE * 5)}
          >
            Show earlier messages
          </Button>
        </Group>
      )}
      {visible.length === 0 && hidden === 0 && (
        <Text className="keel-muted">
          No message yet: write a prompt below and send it (Ctrl+Enter) to start the conversation.
        </Text>
      )}
      <MessageList
        messages={visible}
        actions={(entry) =>
          entry.info.role === 'user' ? (
            <Group gap={4} wrap="nowrap">
              {(['Revert', 'Fork'] as const).map((label) => (
                <Button
                  key={label}
                  size="compact-xs"
                  variant="subtle"
                  onClick={() =>
                    act.mutate({ kind: label === 'Revert' ? 'revert' : 'fork', messageID: entry.info.id })
                  }
                  aria-label={`${label} from message ${entry.info.id}`}
                >
                  {label}
                </Button>
              ))}
            </Group>
          ) : undefined
        }
      />
      <Todos directory={directory} sessionID={sessionID} />
      <Changes directory={directory} sessionID={sessionID} />
      {/* Pinned to the bottom of the window however long the conversation: the pending permission
          and the prompt box are always in view. */}
      <div className="keel-dock" aria-label="Reply" role="region">
        <PermissionRequests directory={directory} sessionID={sessionID} />
        <Composer directory={directory} sessionID={sessionID} busy={busy} />
      </div>
    </Stack>
  );
}

/** The answers to a permission request, as their buttons say them. */
const PERMISSION_ANSWERS = [
  { response: 'once', label: 'Allow once' },
  { response: 'always', label: 'Always allow', variant: 'default' },
  { response: 'reject', label: 'Reject', color: 'red.9', variant: 'filled' },
] as const;

const PermissionRequests = memo(function PermissionRequests({
  directory,
  sessionID,
}: {
  directory: string;
  sessionID: string;
}) {
  const permissions = usePermissions(directory);
  const respond = useRespondToPermission(directory, sessionID);
  const mine = (permissions.data ?? []).filter((p) => p.sessionID === sessionID);
  if (mine.length === 0) return null;
  return (
    <Stack gap="xs">
      {mine.map((permission) => (
        <Paper
          key={permission.id}
          withBorder
          p="sm"
          radius="md"
          role="alertdialog"
          aria-label={`Permission: ${permission.title}`}
        >
          <Text fw={600}>Permission requested: {permission.title}</Text>
          <Text size="sm" className="keel-muted">
            {permission.type}
            {permission.pattern ? ` · ${[permission.pattern].flat().join(', ')}` : ''}
          </Text>
          {Object.keys(permission.metadata).length > 0 && (
            <pre className="keel-pre">{JSON.stringify(permission.metadata, null, 2)}</pre>
          )}
          <Group gap="xs" mt="xs">
            {PERMISSION_ANSWERS.map(({ response, label, ...button }) => (
              <Button
                key={response}
                size="xs"
                {...button}
                onClick={() => respond.mutate({ permission, response })}
              >
                {label}
              </Button>
            ))}
          </Group>
          {respond.error && <Text c="red">{errorMessage(respond.error)}</Text>}
        </Paper>
      ))}
    </Stack>
  );
});

const Todos = memo(function Todos({ directory, sessionID }: { directory: string; sessionID: string }) {
  const todos = useTodos(directory, sessionID);
  if (!todos.data?.length) return null;
  return (
    <Paper withBorder p="sm" radius="md" aria-label="Todo list" component="section">
      <Text fw={600} mb={4}>
        Todos
      </Text>
      <Stack gap={2} component="ul" style={{ margin: 0, paddingLeft: '1.2rem' }}>
        {todos.data.map((todo) => (
          <Text
            component="li"
            key={todo.id}
            size="sm"
            td={todo.status === 'completed' ? 'line-through' : undefined}
          >
            {todo.content}{' '}
            <Badge size="xs" variant="filled">
              {todo.status}
            </Badge>
          </Text>
        ))}
      </Stack>
    </Paper>
  );
});

const Changes = memo(function Changes({ directory, sessionID }: { directory: string; sessionID: string }) {
  const diff = useSessionDiff(directory, sessionID);
  if (!diff.data?.length) return null;
  return (
    <details className="keel-details">
      <summary>
        Changes ({diff.data.length} file{diff.data.length === 1 ? '' : 's'})
      </summary>
      <Anchor
        component={Link}
        size="sm"
        to={`/sessions/files?directory=${encodeURIComponent(directory)}&session=${encodeURIComponent(sessionID)}&file=${encodeURIComponent(diff.data[0].file)}`}
      >
        Review in Files
      </Anchor>
      <Stack gap="xs" mt="xs">
        {diff.data.map((d) => (
          <DiffView key={d.file} file={d.file} before={d.before} after={d.after} />
        ))}
      </Stack>
    </details>
  );
});
