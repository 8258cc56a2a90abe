import { useEffect, useRef, useState, type ReactNode } from 'react';
import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  Loader,
  MultiSelect,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { Link, useParams } from 'react-router-dom';
import { api, errorMessage, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { fieldErrors } from './fieldErrors';
import { useMiddlewares, useResource, useRoutingMutation, useServices } from './queries';

type Resource = components['schemas']['ResourceDto'];

/**
 * A field's local value that follows the server's (a change elsewhere) unless the user has edited it
 * since: a refresh never overwrites what is being typed. `submitted()` before a save lets the saved,
 * possibly normalized, value replace what was typed.
 */
function useServerValue<T>(server: T): [T, (value: T) => void, () => void] {
  const [value, setValue] = useState(server);
  const synced = useRef(server);
  useEffect(() => {
    setValue((current) => (current === synced.current ? server : current));
    synced.current = server;
  }, [server]);
  return [value, setValue, () => (synced.current = value)];
}

export function ResourceDetailPage() {
  const { id = '' } = useParams();
  const resource = useResource(id);

  if (resource.isPending) return <Loader aria-label="Loading" />;
  if (resource.error)
    return (
      <Stack>
        <Anchor component={Link} to="/routing/resources">
          ← Resources
        </Anchor>
        <Alert color="red">{errorMessage(resource.error)}</Alert>
      </Stack>
    );
  const r = resource.data;
  const disabled = r.status === 'disabled';
  return (
    <Stack>
      <Anchor component={Link} to="/routing/resources">
        ← Resources
      </Anchor>
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h2" style={{ wordBreak: 'break-all' }}>
          {r.host}
        </Title>
        <Badge color={disabled ? 'gray.8' : 'teal.9'} variant="filled" size="lg">
          {r.status}
        </Badge>
      </Group>
      {disabled && (
        <Alert color="yellow">
          The data source no longer lists this resource: it is read-only until it comes back, or it can be
          deleted from the Resources page.
        </Alert>
      )}
      <Card withBorder>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
          <Fact label="Resource id" value={r.id} />
          <Fact label="Host" value={r.host} />
          <Fact label="Source" value={r.source_type || 'unknown'} />
          <Fact label="Default service" value={r.service_id} />
        </SimpleGrid>
      </Card>
      <MiddlewaresCard resource={r} disabled={disabled} />
      <ServiceCard resource={r} disabled={disabled} />
      <RouterCard resource={r} disabled={disabled} />
    </Stack>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text style={{ wordBreak: 'break-all' }}>{value}</Text>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Title order={2} size="h4">
          {title}
        </Title>
        {children}
      </Stack>
    </Card>
  );
}

/** What an action answered, in words, beside it. */
function Outcome({ error, done }: { error: unknown; done?: string | false }) {
  if (error)
    return (
      <Text c="var(--mantine-color-error)" size="sm" role="alert">
        {fieldErrors(error)[''] ?? Object.values(fieldErrors(error)).join('; ')}
      </Text>
    );
  if (done)
    return (
      <Text c="var(--keel-color-ok)" size="sm" role="status">
        {done}
      </Text>
    );
  return null;
}

function MiddlewaresCard({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  const middlewares = useMiddlewares();
  const [chosen, setChosen] = useState<string[]>([]);
  const [priority, setPriority] = useState<number | string>(200);
  const path = { params: { path: { id: resource.id } } };
  const add = useRoutingMutation(async () =>
    unwrap(
      await api.POST('/api/resources/{id}/middlewares/bulk', {
        ...path,
        body: { middlewares: chosen.map((middleware_id) => ({ middleware_id, priority: Number(priority) })) },
      }),
    ),
  );
  const assigned = new Set(resource.assigned_middlewares.map((m) => m.id));
  const options = (middlewares.data ?? [])
    .filter((m) => !assigned.has(m.id))
    .map((m) => ({ value: m.id, label: `${m.name} (${m.type})` }));

  return (
    <Section title="Middlewares">
      {resource.assigned_middlewares.length === 0 ? (
        <Text>No middleware: this resource is not protected.</Text>
      ) : (
        <Table.ScrollContainer minWidth={320}>
          <Table aria-label="Attached middlewares">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Middleware</Table.Th>
                <Table.Th>Priority</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {resource.assigned_middlewares.map((m) => (
                <AttachedMiddleware key={m.id} resourceId={resource.id} link={m} disabled={disabled} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Text size="sm">Higher priority runs first (1–1000). Default: 200.</Text>
      {!disabled && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (chosen.length) add.mutate(undefined, { onSuccess: () => setChosen([]) });
          }}
        >
          <Group align="end" wrap="wrap">
            <MultiSelect
              label="Add middlewares"
              placeholder={options.length ? 'Choose one or more' : 'All middlewares attached'}
              data={options}
              value={chosen}
              onChange={setChosen}
              searchable
              style={{ flex: '1 1 240px' }}
            />
            <NumberInput
              label="Priority"
              value={priority}
              onChange={setPriority}
              min={1}
              max={1000}
              w={110}
            />
            <Button type="submit" disabled={!chosen.length} loading={add.isPending}>
              Add
            </Button>
          </Group>
          <Outcome error={add.error} />
        </form>
      )}
    </Section>
  );
}

function AttachedMiddleware({
  resourceId,
  link,
  disabled,
}: {
  resourceId: string;
  link: { id: string; name: string; priority: number };
  disabled: boolean;
}) {
  const [priority, setPriority, submitted] = useServerValue<number | string>(link.priority);
  const save = useRoutingMutation(async () =>
    unwrap(
      await api.POST('/api/resources/{id}/middlewares', {
        params: { path: { id: resourceId } },
        body: { middleware_id: link.id, priority: Number(priority) },
      }),
    ),
  );
  const remove = useRoutingMutation(async () =>
    unwrap(
      await api.DELETE('/api/resources/{id}/middlewares/{middlewareId}', {
        params: { path: { id: resourceId, middlewareId: link.id } },
      }),
    ),
  );
  return (
    <Table.Tr>
      <Table.Td>
        <Anchor component={Link} to={`/routing/middlewares/${encodeURIComponent(link.id)}`}>
          {link.name}
        </Anchor>
        <Outcome error={save.error ?? remove.error} />
      </Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <NumberInput
            aria-label={`Priority of ${link.name}`}
            value={priority}
            onChange={setPriority}
            min={1}
            max={1000}
            w={90}
            disabled={disabled}
          />
          {!disabled && Number(priority) !== link.priority && (
            <Button
              size="xs"
              onClick={() => {
                submitted();
                save.mutate(undefined);
              }}
              loading={save.isPending}
            >
              Save
            </Button>
          )}
        </Group>
      </Table.Td>
      <Table.Td>
        {!disabled && (
          <Button
            size="xs"
            variant="light"
            color="red"
            aria-label={`Remove ${link.name}`}
            onClick={() => remove.mutate(undefined)}
            loading={remove.isPending}
          >
            Remove
          </Button>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

function ServiceCard({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  const services = useServices();
  const [chosen, setChosen] = useState<string | null>(null);
  const path = { params: { path: { id: resource.id } } };
  const assign = useRoutingMutation(async (service_id: string) =>
    unwrap(await api.POST('/api/resources/{id}/service', { ...path, body: { service_id } })),
  );
  const remove = useRoutingMutation(async () =>
    unwrap(await api.DELETE('/api/resources/{id}/service', path)),
  );
  const current = resource.assigned_service as { id: string; name: string; type: string } | null;

  return (
    <Section title="Service">
      {current ? (
        <Text>
          Custom service{' '}
          <Anchor
            component={Link}
            to={`/routing/services/${encodeURIComponent(current.id)}`}
            underline="always"
          >
            {current.name}
          </Anchor>{' '}
          ({current.type}) replaces the default service <code>{resource.service_id}</code>.
        </Text>
      ) : (
        <Text>
          Traffic goes to the default service <code>{resource.service_id}</code>.
        </Text>
      )}
      {!disabled && (
        <Group align="end" wrap="wrap">
          <Select
            label="Assign a service"
            placeholder="Choose a service"
            data={(services.data ?? []).map((s) => ({ value: s.id, label: `${s.name} (${s.type})` }))}
            value={chosen}
            onChange={setChosen}
            searchable
            style={{ flex: '1 1 220px' }}
          />
          <Button
            disabled={!chosen}
            loading={assign.isPending}
            onClick={() => chosen && assign.mutate(chosen, { onSuccess: () => setChosen(null) })}
          >
            Assign
          </Button>
          {current && (
            <Button
              variant="light"
              color="red"
              loading={remove.isPending}
              onClick={() => remove.mutate(undefined)}
            >
              Remove assignment
            </Button>
          )}
          <Button
            variant="default"
            component={Link}
            to={`/routing/services/new?resource=${encodeURIComponent(resource.id)}`}
          >
            Create new
          </Button>
        </Group>
      )}
      <Outcome error={assign.error ?? remove.error} />
    </Section>
  );
}

function RouterCard({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  return (
    <Section title="Router configuration">
      <SingleSetting
        label="HTTP entry points"
        description="Comma-separated; empty means websecure"
        field="entrypoints"
        initial={resource.entrypoints}
        disabled={disabled}
        save={async (value) =>
          unwrap(
            await api.PUT('/api/resources/{id}/config/http', {
              params: { path: { id: resource.id } },
              body: { entrypoints: value },
            }),
          )
        }
      />
      <SingleSetting
        label="TLS domains"
        description="Comma-separated extra certificate domains (SANs)"
        field="tls_domains"
        initial={resource.tls_domains}
        disabled={disabled}
        save={async (value) =>
          unwrap(
            await api.PUT('/api/resources/{id}/config/tls', {
              params: { path: { id: resource.id } },
              body: { tls_domains: value },
            }),
          )
        }
      />
      <TcpSetting resource={resource} disabled={disabled} />
      {/* Remounted when the stored headers change, so the rows show what was saved. */}
      <HeadersSetting
        key={JSON.stringify(resource.custom_headers_map ?? {})}
        resource={resource}
        disabled={disabled}
      />
      <PrioritySetting resource={resource} disabled={disabled} />
    </Section>
  );
}

function SingleSetting({
  label,
  description,
  field,
  initial,
  disabled,
  save,
}: {
  label: string;
  description: string;
  field: string;
  initial: string;
  disabled: boolean;
  save: (value: string) => Promise<unknown>;
}) {
  const [value, setValue, submitted] = useServerValue(initial);
  const mutation = useRoutingMutation(save);
  const errors = fieldErrors(mutation.error);
  return (
    <SaveForm
      onSave={() => {
        submitted();
        mutation.mutate(value);
      }}
      pending={mutation.isPending}
      changed={value !== initial}
      disabled={disabled}
      outcome={<Outcome error={errors[''] ? mutation.error : null} />}
    >
      <TextInput
        label={label}
        description={description}
        value={value}
        onChange={(e) => setValue(e.currentTarget.value)}
        error={errors[field]}
        disabled={disabled}
        style={{ flex: '1 1 240px' }}
      />
    </SaveForm>
  );
}

/** One setting's field with its Save button (shown when the setting can be changed, enabled once it is). */
function SaveForm({
  onSave,
  pending,
  changed,
  disabled,
  outcome,
  children,
}: {
  onSave: () => void;
  pending: boolean;
  changed: boolean;
  disabled: boolean;
  outcome?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSave();
      }}
    >
      <Group align="end" wrap="wrap">
        {children}
        {!disabled && (
          <Button type="submit" loading={pending} disabled={!changed}>
            Save
          </Button>
        )}
      </Group>
      {outcome}
    </form>
  );
}

function TcpSetting({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  const [enabled, setEnabled, enabledSubmitted] = useServerValue(resource.tcp_enabled);
  const [entrypoints, setEntrypoints, entrypointsSubmitted] = useServerValue(resource.tcp_entrypoints);
  const [rule, setRule, ruleSubmitted] = useServerValue(resource.tcp_sni_rule);
  const mutation = useRoutingMutation(async () =>
    unwrap(
      await api.PUT('/api/resources/{id}/config/tcp', {
        params: { path: { id: resource.id } },
        body: { tcp_enabled: enabled, tcp_entrypoints: entrypoints, tcp_sni_rule: rule },
      }),
    ),
  );
  const errors = fieldErrors(mutation.error);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        enabledSubmitted();
        entrypointsSubmitted();
        ruleSubmitted();
        mutation.mutate(undefined);
      }}
    >
      <Stack gap="xs">
        <Switch
          label="TCP SNI routing"
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
          disabled={disabled}
          error={errors.tcp_enabled}
        />
        {enabled && (
          <Group align="start" wrap="wrap">
            <TextInput
              label="TCP entry points"
              description="Comma-separated; empty means tcp"
              value={entrypoints}
              onChange={(e) => setEntrypoints(e.currentTarget.value)}
              error={errors.tcp_entrypoints}
              disabled={disabled}
              style={{ flex: '1 1 200px' }}
            />
            <TextInput
              label="SNI rule"
              description={`Empty means HostSNI(\`${resource.host}\`)`}
              value={rule}
              onChange={(e) => setRule(e.currentTarget.value)}
              error={errors.tcp_sni_rule}
              disabled={disabled}
              style={{ flex: '2 1 240px' }}
            />
          </Group>
        )}
        {!disabled && (
          <Group>
            <Button type="submit" loading={mutation.isPending} variant="light">
              Save TCP routing
            </Button>
            <Outcome error={errors[''] ? mutation.error : null} done={mutation.isSuccess && 'Saved.'} />
          </Group>
        )}
      </Stack>
    </form>
  );
}

function HeadersSetting({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  const initial = Object.entries(resource.custom_headers_map ?? {}).map(([name, value]) => ({
    name,
    value: String(value),
  }));
  const [rows, setRows] = useState(initial);
  const mutation = useRoutingMutation(async () =>
    unwrap(
      await api.PUT('/api/resources/{id}/config/headers', {
        params: { path: { id: resource.id } },
        body: {
          custom_headers: Object.fromEntries(
            rows.filter((r) => r.name.trim()).map((r) => [r.name.trim(), r.value]),
          ),
        },
      }),
    ),
  );
  const errors = fieldErrors(mutation.error);
  const update = (index: number, change: Partial<{ name: string; value: string }>) =>
    setRows(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        mutation.mutate(undefined);
      }}
    >
      <Stack gap="xs">
        <Text fw={500} size="sm">
          Custom request headers
        </Text>
        {rows.length === 0 && <Text size="sm">None.</Text>}
        {rows.map((row, index) => (
          <Group key={index} align="start" wrap="wrap" gap="xs">
            <TextInput
              aria-label={`Header ${index + 1} name`}
              placeholder="Name"
              value={row.name}
              onChange={(e) => update(index, { name: e.currentTarget.value })}
              error={errors[`custom_headers.${row.name.trim()}`]}
              disabled={disabled}
              style={{ flex: '1 1 140px' }}
            />
            <TextInput
              aria-label={`Header ${index + 1} value`}
              placeholder="Value"
              value={row.value}
              onChange={(e) => update(index, { value: e.currentTarget.value })}
              disabled={disabled}
              style={{ flex: '2 1 160px' }}
            />
            {!disabled && (
              <ActionIcon
                variant="default"
                size="lg"
                aria-label={`Remove header ${index + 1}`}
                onClick={() => setRows(rows.filter((_, i) => i !== index))}
              >
                ×
              </ActionIcon>
            )}
          </Group>
        ))}
        {!disabled && (
          <Group>
            <Button variant="default" onClick={() => setRows([...rows, { name: '', value: '' }])}>
              Add header
            </Button>
            <Button type="submit" variant="light" loading={mutation.isPending}>
              Save headers
            </Button>
            <Outcome
              error={
                mutation.error && !rows.some((r) => errors[`custom_headers.${r.name.trim()}`])
                  ? mutation.error
                  : null
              }
              done={mutation.isSuccess && 'Saved.'}
            />
          </Group>
        )}
      </Stack>
    </form>
  );
}

function PrioritySetting({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  const [value, setValue, submitted] = useServerValue<number | string>(resource.router_priority);
  const mutation = useRoutingMutation(async () =>
    unwrap(
      await api.PUT('/api/resources/{id}/config/priority', {
        params: { path: { id: resource.id } },
        body: { router_priority: Number(value) },
      }),
    ),
  );
  const errors = fieldErrors(mutation.error);
  return (
    <SaveForm
      onSave={() => {
        submitted();
        mutation.mutate(undefined);
      }}
      pending={mutation.isPending}
      changed={value !== resource.router_priority}
      disabled={disabled}
    >
      <NumberInput
        label="Router priority"
        description="Higher wins when several routers match"
        value={value}
        onChange={setValue}
        error={errors.router_priority ?? errors['']}
        disabled={disabled}
        w={220}
      />
    </SaveForm>
  );
}
