import { useState } from 'react';
import { ActionIcon, Button, Group, NumberInput, Switch, Text, TextInput } from '@mantine/core';
import { fieldErrors } from '../fieldErrors';
import type { Resource } from '../api/resources';
import {
  useSaveCustomHeaders,
  useSaveResourceText,
  useSaveRouterPriority,
  useSaveTcpRouting,
} from '../api/resourceSettings';
import { failureText, Outcome, Section, SettingForm } from './SettingForm';
import { useServerValue } from './useServerValue';

export function RouterCard({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  return (
    <Section title="Router configuration">
      <SingleSetting
        label="HTTP entry points"
        description="Comma-separated; empty means websecure"
        field="entrypoints"
        resource={resource}
        disabled={disabled}
      />
      <SingleSetting
        label="TLS domains"
        description="Comma-separated extra certificate domains (SANs)"
        field="tls_domains"
        resource={resource}
        disabled={disabled}
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
  resource,
  disabled,
}: {
  label: string;
  description: string;
  field: 'entrypoints' | 'tls_domains';
  resource: Resource;
  disabled: boolean;
}) {
  const initial = resource[field];
  const [value, setValue, submitted] = useServerValue(initial);
  const mutation = useSaveResourceText(resource.id, field, label);
  const errors = fieldErrors(mutation.error);
  return (
    <SettingForm
      onSave={() => {
        submitted();
        mutation.mutate(value);
      }}
      pending={mutation.isPending}
      changed={value !== initial}
      disabled={disabled}
      outcome={<Outcome failed={errors['']} />}
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
    </SettingForm>
  );
}

function TcpSetting({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  const [enabled, setEnabled, enabledSubmitted] = useServerValue(resource.tcp_enabled);
  const [entrypoints, setEntrypoints, entrypointsSubmitted] = useServerValue(resource.tcp_entrypoints);
  const [rule, setRule, ruleSubmitted] = useServerValue(resource.tcp_sni_rule);
  const mutation = useSaveTcpRouting(resource.id);
  const errors = fieldErrors(mutation.error);
  const changed =
    enabled !== resource.tcp_enabled ||
    (enabled && (entrypoints !== resource.tcp_entrypoints || rule !== resource.tcp_sni_rule));
  return (
    <SettingForm
      layout="stack"
      saveLabel="Save TCP routing"
      onSave={() => {
        enabledSubmitted();
        entrypointsSubmitted();
        ruleSubmitted();
        mutation.mutate({ tcp_enabled: enabled, tcp_entrypoints: entrypoints, tcp_sni_rule: rule });
      }}
      pending={mutation.isPending}
      changed={changed}
      disabled={disabled}
      outcome={<Outcome failed={errors['']} />}
    >
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
    </SettingForm>
  );
}

function HeadersSetting({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  const initial = Object.entries(resource.custom_headers_map ?? {}).map(([name, value]) => ({
    name,
    value: String(value),
  }));
  const [rows, setRows] = useState(initial);
  const mutation = useSaveCustomHeaders(resource.id);
  const errors = fieldErrors(mutation.error);
  const update = (index: number, change: Partial<{ name: string; value: string }>) =>
    setRows(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  const meaningful = (list: { name: string; value: string }[]) =>
    JSON.stringify(list.filter((r) => r.name.trim()).map((r) => [r.name.trim(), r.value]));
  return (
    <SettingForm
      layout="stack"
      saveLabel="Save headers"
      onSave={() =>
        mutation.mutate(
          Object.fromEntries(rows.filter((r) => r.name.trim()).map((r) => [r.name.trim(), r.value])),
        )
      }
      pending={mutation.isPending}
      changed={meaningful(rows) !== meaningful(initial)}
      disabled={disabled}
      extra={
        <Button variant="default" onClick={() => setRows([...rows, { name: '', value: '' }])}>
          Add header
        </Button>
      }
      outcome={
        <Outcome
          failed={!rows.some((r) => errors[`custom_headers.${r.name.trim()}`]) && failureText(mutation.error)}
        />
      }
    >
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
    </SettingForm>
  );
}

function PrioritySetting({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  const [value, setValue, submitted] = useServerValue<number | string>(resource.router_priority);
  const mutation = useSaveRouterPriority(resource.id);
  const errors = fieldErrors(mutation.error);
  return (
    <SettingForm
      onSave={() => {
        submitted();
        mutation.mutate(Number(value));
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
    </SettingForm>
  );
}
