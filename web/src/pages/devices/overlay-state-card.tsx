import { Badge, Card, Group, List, Stack, Text, Title } from '@mantine/core';
import type { DeviceView } from '../../api/types';
import { RelativeTime } from '../../components/device-bits';
import type { DeviceChild } from './device-children';

type Overlay = DeviceView['overlays'][number];

/** Why Hearth Space shows, in a few words after the account ("locked", "paused"). */
export function overlayReasonText(overlay: Pick<Overlay, 'reason' | 'context'>): string {
  if (overlay.reason === 'locked') return overlay.context === 'paused' ? 'paused' : 'locked';
  if (overlay.reason === 'clock_tamper') return 'clock lock';
  if (overlay.reason === 'signup') return 'sign-up';
  return overlay.reason;
}

/**
 * Whether Hearth Space is on screen on this device, per account, as its agent last said
 * (`overlay_status`); the device's live `device_status` events keep it current.
 */
export function OverlayStateCard({ device, users }: { device: DeviceView; users: DeviceChild[] }) {
  const childOf = new Map(users.map((u) => [u.linuxUsername, u.child.name]));
  const who = (account: string) => {
    const child = childOf.get(account);
    return child ? `${account} (${child})` : account;
  };
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="overlay-state-title">
      <Stack gap="sm" data-testid="overlay-state">
        <Group justify="space-between" gap="sm">
          <Title order={2} fz="lg" id="overlay-state-title">
            Hearth Space
          </Title>
          {device.overlays.length ? (
            <Badge variant="light" color="orange" radius="sm">
              Showing
            </Badge>
          ) : device.overlays_reported_at ? (
            <Badge variant="light" color="gray" radius="sm">
              Not showing
            </Badge>
          ) : null}
        </Group>
        {device.overlays.length ? (
          <List size="sm" spacing={4}>
            {device.overlays.map((o) => (
              <List.Item key={o.linux_username} data-testid="overlay-entry">
                Hearth Space is showing for <b>{who(o.linux_username)}</b> ({overlayReasonText(o)}) since{' '}
                <RelativeTime iso={o.since} />
              </List.Item>
            ))}
          </List>
        ) : (
          <Text size="sm" data-testid="overlay-none">
            {device.overlays_reported_at
              ? 'Hearth Space is not showing on this device.'
              : 'This device’s agent has not said whether Hearth Space is showing.'}
          </Text>
        )}
        {device.overlays_reported_at ? (
          <Text size="xs" c="dimmed">
            As the device said <RelativeTime iso={device.overlays_reported_at} />
            {device.online ? '' : '; it is offline now, so this may have changed'}.
          </Text>
        ) : null}
      </Stack>
    </Card>
  );
}
