import { useState } from 'react';
import { Anchor, Button, Group, Select, Text } from '@mantine/core';
import { Link } from 'react-router-dom';
import { useServices } from '../api/definitions';
import type { Resource } from '../api/resources';
import { useAssignService, useUnassignService } from '../api/resourceSettings';
import { failureText, Outcome, Section } from './SettingForm';

export function ServiceCard({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  const services = useServices();
  const [chosen, setChosen] = useState<string | null>(null);
  const assign = useAssignService(resource.id);
  const remove = useUnassignService(resource.id);
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
      <Outcome failed={failureText(assign.error ?? remove.error)} />
    </Section>
  );
}
