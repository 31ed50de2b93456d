import { Alert, Button, Group, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';
import { IconAlert, IconCheck } from './icons';

export function PageHeader({
  title,
  description,
  actions,
  leading,
  documentTitle,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  /** Shown before the title, such as a child's avatar. */
  leading?: ReactNode;
  /** The browser tab title when it should differ from `title`. */
  documentTitle?: string;
}) {
  useDocumentTitle(`${documentTitle ?? title} · Hearth`);
  return (
    <Group justify="space-between" align="flex-start" gap="md" mb="lg" wrap="wrap">
      <Group gap="md" wrap="nowrap" align="center" style={{ minWidth: 0, flex: '1 1 16rem' }}>
        {leading}
        <Stack gap={4} style={{ minWidth: 0 }}>
          <Title order={1} fz={{ base: 26, sm: 30 }} style={{ overflowWrap: 'anywhere' }}>
            {title}
          </Title>
          {typeof description === 'string' ? (
            <Text c="dimmed" size="md">
              {description}
            </Text>
          ) : (
            description
          )}
        </Stack>
      </Group>
      {actions}
    </Group>
  );
}

/** An inline, calm error: the server's sentence, never raw JSON. */
export function ErrorAlert({
  error,
  title = 'That did not work',
  onRetry,
}: {
  error: ApiError | string | null | undefined;
  title?: string;
  onRetry?: () => void;
}) {
  if (!error) return null;
  const message = typeof error === 'string' ? error : error.message;
  return (
    <Alert color="red" variant="light" title={title} icon={<IconAlert />} role="alert">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{message}</Text>
        {onRetry ? (
          <Button size="xs" variant="white" color="red" onClick={onRetry}>
            Try again
          </Button>
        ) : null}
      </Stack>
    </Alert>
  );
}

/** Shown above what an earlier load left on screen when the latest one failed. */
export function StaleNotice({ error }: { error: ApiError | null | undefined }) {
  if (!error) return null;
  return (
    <Alert variant="light" color="yellow" icon={<IconAlert />} title="Not up to date" role="status">
      {error.message} Hearth keeps trying and updates this page once it can.
    </Alert>
  );
}

export function notifySaved(message: string, title?: string): void {
  notifications.show({
    color: 'teal',
    title,
    message,
    icon: <IconCheck size={18} />,
    closeButtonProps: { 'aria-label': 'Dismiss' },
  });
}

export function notifyError(err: unknown, title = 'That did not work'): void {
  const message = err instanceof ApiError || err instanceof Error ? err.message : String(err);
  notifications.show({
    color: 'red',
    title,
    message,
    icon: <IconAlert size={18} />,
    autoClose: 8000,
    closeButtonProps: { 'aria-label': 'Dismiss' },
  });
}
