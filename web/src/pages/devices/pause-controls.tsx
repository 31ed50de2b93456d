import { Anchor, Group, Paper, Stack, Text } from '@mantine/core';
import { Link } from 'react-router-dom';
import { isConsolePlatform } from '../../api/consoles';
import { useSyncStatus, useTimeUsage } from '../../api/time';
import type { DeviceView } from '../../api/types';
import { ChildAvatar } from '../../components/child-bits';
import { ChildPauseControls, pausedUntilText, StateBadge, SyncBadge } from '../../components/time-bits';
import type { DeviceChild } from './device-children';

/**
 * The child using an account on this device, their state today and the child's pause: pausing here
 * pauses the child on all their devices at once (DESIGN §10), as on the child's page.
 */
export function PauseControls({ device, user }: { device: DeviceView; user: DeviceChild }) {
  const { child, linuxUsername } = user;
  const usage = useTimeUsage(child.id).data;
  // Whether this account on this device applied the child's latest time rules.
  const sync = useSyncStatus(child.id).data?.items.find((i) => i.mapping_id === user.mappingId);
  const approved = device.status === 'approved';
  // A console's account is its player, named in the vendor's list.
  const accountName = isConsolePlatform(device.platform)
    ? (device.linux_users.find((u) => u.username === linuxUsername)?.display_name ?? linuxUsername)
    : linuxUsername;

  return (
    <Paper withBorder radius="md" p="sm" data-testid="device-account">
      <Stack gap="xs">
        <Group justify="space-between" gap="sm" wrap="wrap">
          <Group wrap="nowrap" gap="sm" style={{ minWidth: 0 }}>
            <ChildAvatar name={child.name} />
            <Stack gap={0} style={{ minWidth: 0 }}>
              <Anchor
                component={Link}
                to={`/children/${encodeURIComponent(child.id)}`}
                fw={600}
                c="inherit"
                style={{ overflowWrap: 'anywhere' }}
              >
                {child.name}
              </Anchor>
              <Text size="sm" c="dimmed">
                {isConsolePlatform(device.platform) ? 'Plays as ' : 'Account '}
                <b>{accountName}</b>
                {usage?.state === 'paused' ? ` · paused ${pausedUntilText(usage)}` : ''}
              </Text>
            </Stack>
          </Group>
          <Group gap={6}>
            {usage ? <StateBadge state={usage.state} /> : null}
            {sync ? <SyncBadge status={sync.status} /> : null}
          </Group>
        </Group>
        {approved ? <ChildPauseControls childId={child.id} childName={child.name} usage={usage} /> : null}
      </Stack>
    </Paper>
  );
}
