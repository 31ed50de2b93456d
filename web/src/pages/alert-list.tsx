import { Button, Card, Center, EmptyState, Skeleton, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import type { AlertFeed } from '../api/alerts';
import { AlertItem } from '../components/alert-item';
import { ErrorAlert } from '../components/page';

/** Alerts or requests newest first, with "Load more" while older ones remain. */
export function AlertList({
  feed,
  label,
  empty,
  showKind = true,
}: {
  feed: AlertFeed;
  /** Names the list for assistive technology. */
  label: string;
  /** Shown when there is nothing to list. */
  empty: ReactNode;
  showKind?: boolean;
}) {
  const { items, error } = feed;
  if (error && !items)
    return <ErrorAlert error={error} onRetry={feed.reload} title="Could not load the list" />;
  if (!items) {
    return (
      <Stack gap="sm" aria-busy="true">
        <Skeleton h={104} radius="md" />
        <Skeleton h={104} radius="md" />
        <Skeleton h={104} radius="md" />
      </Stack>
    );
  }
  if (!items.length) {
    return (
      <Card withBorder radius="lg" py={56}>
        {empty}
      </Card>
    );
  }
  return (
    <Stack gap="md">
      <Stack
        gap="sm"
        component="ul"
        aria-label={label}
        style={{ listStyle: 'none', margin: 0, padding: 0 }}
        data-testid="alert-list"
      >
        {items.map((alert) => (
          <li key={alert.id}>
            <AlertItem alert={alert} showKind={showKind} />
          </li>
        ))}
      </Stack>
      {feed.moreError ? <ErrorAlert error={feed.moreError} title="Could not load more" /> : null}
      {feed.hasMore ? (
        <Center>
          <Button variant="default" onClick={feed.loadMore} loading={feed.loadingMore}>
            Load more
          </Button>
        </Center>
      ) : null}
    </Stack>
  );
}

/** The calm "nothing here" of a list page. */
export function ListEmpty({
  icon,
  title,
  description,
  action,
}: {
  icon: ReactNode;
  title: string;
  description: string;
  action?: ReactNode;
}) {
  return (
    <EmptyState icon={icon} variant="light" title={title} description={description} maw={460} mx="auto">
      {action ? <EmptyState.Actions>{action}</EmptyState.Actions> : null}
    </EmptyState>
  );
}
