import { Box, Button, Group, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useAcknowledge, visibleTo } from '../api/alerts';
import { messageOf } from '../api/client';
import { useLiveEvent } from '../api/live';
import { type PauseRequest, usePauseChild } from '../api/mutations';
import type { AlertView } from '../api/types';
import { accessReasonLabel } from '../labels';
import { useSession } from '../session';
import { alertSubject, requestMessage } from './alert-item';
import { IconCheck, IconInbox, IconPause, IconPlay } from './icons';
import { ErrorAlert } from './page';

const notificationId = (alertId: string) => `access-request-${alertId}`;

// Rendered by the notifications layer, outside the router, the session and the data provider:
// everything it needs comes in through its props, the query cache too.
function AccessRequestNotice({
  alert,
  acknowledge,
  cache,
}: {
  alert: AlertView;
  acknowledge: (alert: AlertView) => Promise<AlertView>;
  cache: QueryClient;
}) {
  // Pausing here is the child's pause on all their devices (DESIGN §10), as on their page.
  const pause = usePauseChild(alert.managed_user_id ?? '', cache);
  const [said, setSaid] = useState<string | null>(null);
  const [marking, setMarking] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const canPause = !!alert.managed_user_id;
  const message = requestMessage(alert);
  const who = alertSubject(alert);
  const busy = pause.isPending ? pause.variables?.action : undefined;

  async function run(request: PauseRequest, done: string) {
    setSaid(null);
    try {
      await pause.mutateAsync(request);
      setSaid(done);
    } catch {
      // Shown below from the mutation's error.
    }
  }

  async function markRead() {
    setMarking(true);
    setFailure(null);
    try {
      // Once it is read, the notification closes (see AccessRequestNotifier).
      await acknowledge(alert);
    } catch (err) {
      setFailure(messageOf(err));
      setMarking(false);
    }
  }

  return (
    <Stack gap={6} mt={2}>
      <Text size="sm" c="dimmed" data-testid="request-reason">
        {accessReasonLabel(alert.payload.reason)}
        {alert.display_name ? ` · on ${alert.display_name}` : ''}
      </Text>
      {message ? (
        <Text
          size="sm"
          c="var(--mantine-color-text)"
          className="hearth-quote"
          style={{ overflowWrap: 'anywhere' }}
        >
          “{message}”
        </Text>
      ) : null}
      <Group gap={6} mt={4}>
        {canPause ? (
          <>
            <Button
              size="xs"
              leftSection={<IconPause size={14} />}
              onClick={() => run({ action: 'pause' }, `${who} is paused on all devices until you resume.`)}
              loading={busy === 'pause'}
              disabled={busy === 'resume'}
              title={`Pause ${who} on all their devices until you resume`}
            >
              Pause {who}
            </Button>
            <Button
              size="xs"
              variant="default"
              leftSection={<IconPlay size={14} />}
              onClick={() => run({ action: 'resume' }, `${who} can use their devices again.`)}
              loading={busy === 'resume'}
              disabled={busy === 'pause'}
              title={`Resume ${who} on all their devices`}
            >
              Resume
            </Button>
          </>
        ) : null}
        <Button
          size="xs"
          variant="light"
          leftSection={<IconCheck size={14} />}
          onClick={markRead}
          loading={marking}
        >
          Mark as read
        </Button>
      </Group>
      <div aria-live="polite">
        {said && !pause.error ? (
          <Group gap={6} wrap="nowrap" mt="xs" c="teal" data-testid="pause-result">
            <IconCheck size={16} />
            <Text size="sm" fw={500}>
              {said}
            </Text>
          </Group>
        ) : null}
      </div>
      {pause.error ? (
        <Box mt="xs">
          <ErrorAlert error={messageOf(pause.error)} title="Not done" />
        </Box>
      ) : null}
      {failure ? (
        <Text size="sm" c="red" role="alert">
          Not marked as read: {failure}
        </Text>
      ) : null}
    </Stack>
  );
}

/**
 * Pops up a notification on any page as soon as a child sends an access request, with Pause <child>,
 * Resume and Mark as read; it stays until the parent acts on it or dismisses it.
 */
export function AccessRequestNotifier() {
  const { isAdmin } = useSession();
  const acknowledge = useAcknowledge();
  const cache = useQueryClient();
  // A request replayed after a reconnect pops up only once.
  const shown = useRef(new Set<string>());

  useLiveEvent(['access_requested'], (alert) => {
    if (alert.acknowledged_at || !visibleTo(isAdmin, alert) || shown.current.has(alert.id)) return;
    shown.current.add(alert.id);
    notifications.show({
      id: notificationId(alert.id),
      title: `${alertSubject(alert)} sent a request`,
      message: <AccessRequestNotice alert={alert} acknowledge={acknowledge} cache={cache} />,
      icon: <IconInbox size={18} />,
      color: 'hearth',
      autoClose: false,
      closeButtonProps: { 'aria-label': 'Dismiss' },
      // A long message makes a tall notification; its icon and close button stay at the top.
      styles: { icon: { alignSelf: 'flex-start' }, closeButton: { alignSelf: 'flex-start' } },
      'data-testid': 'access-request-notification',
    });
  });

  useLiveEvent(['alert_acknowledged'], (alert) => notifications.hide(notificationId(alert.id)));

  return null;
}
