import { Suspense, type ReactNode } from 'react';
import { Loader } from '@mantine/core';

/** A page whose code is fetched on first visit, with the console's loading placeholder until it is here. */
export const suspended = (page: ReactNode) => (
  <Suspense fallback={<Loader aria-label="Loading" />}>{page}</Suspense>
);
