import { Anchor, Badge, Button, Group, Paper, Stack, Text, ThemeIcon } from '@mantine/core';
import { useId, useState } from 'react';
import { Link } from 'react-router-dom';
import { useAcknowledge } from '../api/alerts';
import { messageOf } from '../api/client';
import type { AlertView } from '../api/types';
import { accessReasonLabel, alertDescription, alertKindLabel } from '../labels';
import { ChildAvatar } from './child-bits';
import { RelativeTime } from './device-bits';
import { IconBell, IconCheck, IconClock } from './icons';

/** Who an alert is about: the child, else the account and device, else the device. */
export function alertSubject(alert: AlertView): string {
  if (alert.managed_user_name) return alert.managed_user_name;
  if (alert.linux_username) return `Account ${alert.linux_username}`;
  return alert.display_name ?? alert.hostname ?? 'A device';
}

/** What the child wrote with an access request, if anything. */
export function requestMessage(alert: AlertView): string | null {
  const message = alert.payload.message;
  return typeof message === 'string' && message.trim() ? message : null;
}

/** An alert's free-form details as "key: value" pairs, short enough for a line. */
function detailText(payload: Record<string, unknown>): string {
  return Object.entries(payload)
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .slice(0, 6)
    .map(([key, value]) => {
      const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
      return `${key.replaceAll('_', ' ')}: ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`;
    })
    .join(' · ');
}

function AlertIcon({ alert }: { alert: AlertView }) {
  if (alert.managed_user_name) return <ChildAvatar name={alert.managed_user_name} />;
  return (
    <ThemeIcon variant="light" color="gray" size={38} radius="xl">
      {alert.kind === 'clock_tamper' ? <IconClock size={20} /> : <IconBell size={20} />}
    </ThemeIcon>
  );
}

/** The device an alert came from, linked to its page. */
export function DeviceLink({ alert }: { alert: AlertView }) {
  if (!alert.system_id) return null;
  return (
    <Anchor
      component={Link}
      to={`/devices/${encodeURIComponent(alert.system_id)}`}
      size="sm"
      style={{ overflowWrap: 'anywhere' }}
    >
      {alert.display_name ?? alert.hostname ?? 'the device'}
    </Anchor>
  );
}

/**
 * One alert or access request: who, what, from which device, when, read or not, and "Mark as read".
 * `showKind` adds a badge naming the kind, for lists that mix kinds.
 */
export function AlertItem({ alert, showKind = true }: { alert: AlertView; showKind?: boolean }) {
  const acknowledge = useAcknowledge();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const titleId = useId();
  const unread = !alert.acknowledged_at;
  const isRequest = alert.kind === 'access_requested';
  const message = isRequest ? requestMessage(alert) : null;
  // The site a child asks about from the browser's Hearth Space (filtered or sign-up).
  const site = isRequest && typeof alert.payload.domain === 'string' ? alert.payload.domain : null;
  const details = isRequest ? '' : detailText(alert.payload);
  const subject = alertSubject(alert);
  // An alert about no child or account is named after its device already.
  const fromDevice = !!alert.system_id && subject !== (alert.display_name ?? alert.hostname);

  async function markRead() {
    setBusy(true);
    setFailure(null);
    try {
      await acknowledge(alert);
    } catch (err) {
      setFailure(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      data-testid="alert-item"
      data-unread={unread || undefined}
      className="hearth-alert"
    >
      <Group justify="space-between" align="flex-start" gap="sm" wrap="wrap">
        <Group wrap="nowrap" align="flex-start" gap="md" style={{ flex: '1 1 18rem', minWidth: 0 }}>
          <AlertIcon alert={alert} />
          <Stack gap={4} style={{ minWidth: 0 }}>
            <Group gap="xs" align="center">
              <Text fw={600} id={titleId} style={{ overflowWrap: 'anywhere' }}>
                {subject}
              </Text>
              {showKind ? (
                <Badge variant="light" color={isRequest ? 'hearth' : 'grape'} radius="sm">
                  {alertKindLabel(alert.kind)}
                </Badge>
              ) : null}
              {unread ? (
                <Badge variant="dot" color="hearth" radius="sm" data-testid="alert-unread">
                  Unread
                </Badge>
              ) : null}
            </Group>
            <Text size="sm">
              {isRequest ? accessReasonLabel(alert.payload.reason) : alertDescription(alert.kind)}
              {site ? (
                <>
                  {' · '}
                  <Text span fw={600} size="sm" data-testid="alert-site" style={{ overflowWrap: 'anywhere' }}>
                    {site}
                  </Text>
                </>
              ) : null}
              {fromDevice ? (
                <>
                  <Text span c="dimmed" size="sm">
                    {' · on '}
                  </Text>
                  <DeviceLink alert={alert} />
                </>
              ) : null}
            </Text>
            {message ? (
              <Text size="sm" className="hearth-quote" style={{ overflowWrap: 'anywhere' }}>
                “{message}”
              </Text>
            ) : null}
            {details ? (
              <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {details}
              </Text>
            ) : null}
            <Text size="xs" c="dimmed">
              <RelativeTime iso={alert.created_at} />
              {unread ? null : ' · Read'}
            </Text>
            {failure ? (
              <Text size="sm" c="red" role="alert">
                Not marked as read: {failure}
              </Text>
            ) : null}
          </Stack>
        </Group>
        {unread ? (
          <Button
            size="xs"
            variant="light"
            loading={busy}
            onClick={markRead}
            leftSection={<IconCheck size={14} />}
            aria-describedby={titleId}
          >
            Mark as read
          </Button>
        ) : null}
      </Group>
    </Paper>
  );
}
