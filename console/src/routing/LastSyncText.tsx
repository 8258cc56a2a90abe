import { Text } from '@mantine/core';
import type { components } from '../api/schema';

type LastSync = components['schemas']['LastSyncDto'];

/** The latest poll of the active source, in words. */
export function LastSyncText({ lastSync }: { lastSync: LastSync | null }) {
  if (!lastSync)
    return (
      <Text size="sm">Not synced yet (the source is not configured, or the first poll is pending).</Text>
    );
  const when = new Date(lastSync.at).toLocaleString();
  if (!lastSync.ok)
    return (
      <Text size="sm" c="var(--mantine-color-error)">
        Last sync failed at {when}: {lastSync.error}
      </Text>
    );
  return (
    <Text size="sm">
      Last sync at {when}: {lastSync.routers} routers listed; {lastSync.added} added, {lastSync.updated}{' '}
      updated, {lastSync.reactivated} reactivated, {lastSync.disabled} disabled.
    </Text>
  );
}
