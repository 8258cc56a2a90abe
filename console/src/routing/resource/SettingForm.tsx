import type { ReactNode } from 'react';
import { Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { fieldErrors } from '../fieldErrors';

export function Section({ title, children }: { title: string; children: ReactNode }) {
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

/** What an action answered, in words, beside it: why it failed, or else what it did. */
export function Outcome({ failed, done }: { failed?: ReactNode; done?: ReactNode }) {
  if (failed)
    return (
      <Text c="var(--mantine-color-error)" size="sm" role="alert">
        {failed}
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

/** A failed change in words: what the routing API said beyond its fields (else its field messages). */
export function failureText(error: unknown): string | undefined {
  if (!error) return undefined;
  const errors = fieldErrors(error);
  return errors[''] ?? Object.values(errors).join('; ');
}

/**
 * One block of settings with its Save button: the button shows when the settings can be changed and is
 * enabled only once something changed. `row` puts a single field and the button on one line; `stack`
 * puts the fields above a row of the button, `extra` actions and the outcome.
 */
export function SettingForm({
  saveLabel = 'Save',
  onSave,
  pending,
  changed,
  disabled,
  outcome,
  extra,
  layout = 'row',
  children,
}: {
  saveLabel?: string;
  onSave: () => void;
  pending: boolean;
  changed: boolean;
  disabled: boolean;
  outcome?: ReactNode;
  extra?: ReactNode;
  layout?: 'row' | 'stack';
  children: ReactNode;
}) {
  const save = !disabled && (
    <Button
      type="submit"
      loading={pending}
      disabled={!changed}
      variant={layout === 'row' ? 'filled' : 'light'}
    >
      {saveLabel}
    </Button>
  );
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (changed) onSave();
      }}
    >
      {layout === 'row' ? (
        <>
          <Group align="end" wrap="wrap">
            {children}
            {save}
          </Group>
          {outcome}
        </>
      ) : (
        <Stack gap="xs">
          {children}
          {!disabled && (
            <Group>
              {extra}
              {save}
              {outcome}
            </Group>
          )}
        </Stack>
      )}
    </form>
  );
}
