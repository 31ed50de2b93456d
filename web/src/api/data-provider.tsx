import { QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { LiveProvider } from './live';
import { createQueryClient } from './query';

/**
 * The signed-in tab's data: one query cache and the live stream that keeps it current. Mounted per
 * parent (keyed by the caller), so nothing cached for one parent is shown to the next.
 */
export function DataProvider({ children }: { children: ReactNode }) {
  const [client] = useState(createQueryClient);
  return (
    <QueryClientProvider client={client}>
      <LiveProvider>{children}</LiveProvider>
    </QueryClientProvider>
  );
}
