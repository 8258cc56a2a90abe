import { Anchor } from '@mantine/core';
import { Link } from 'react-router-dom';

/** A resource's host, linking to its page. */
export function ResourceLink({ id, host }: { id: string; host: string }) {
  return (
    <Anchor component={Link} to={`/routing/resources/${encodeURIComponent(id)}`}>
      {host}
    </Anchor>
  );
}
