import {
  Badge,
  Button,
  Card,
  EmptyState,
  Group,
  Paper,
  Skeleton,
  Stack,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useCallback } from 'react';
import { Link } from 'react-router-dom';
import { isConsolePlatform } from '../../api/consoles';
import { useDevices, useUsers } from '../../api/resources';
import type { DeviceView } from '../../api/types';
import { DeviceConsoleSync } from '../../components/console-bits';
import {
  accountsText,
  DeviceStatusBadge,
  LastSeen,
  OnlineBadge,
  PlatformBadge,
  PlatformIcon,
  RelativeTime,
} from '../../components/device-bits';
import { IconChevronRight, IconDevices, IconPlus } from '../../components/icons';
import { ErrorAlert, PageHeader, StaleNotice } from '../../components/page';
import { plural } from '../../labels';
import { useSignedIn } from '../../session';
import { DecisionButtons } from './decision-buttons';
import { childNames, childrenByDevice, type DeviceChild } from './device-children';

// Devices still in use first; within a group the server's order (newest first) stays, so rows do not
// jump around between refreshes.
const STATUS_ORDER: Record<string, number> = { approved: 0, unenrolled: 1, rejected: 2 };

function PendingDevice({ device, onDecided }: { device: DeviceView; onDecided: () => void }) {
  return (
    <Paper withBorder radius="md" p="md" data-testid="pending-device">
      <Group justify="space-between" align="center" gap="md" wrap="wrap">
        <Group wrap="nowrap" align="flex-start" gap="md" style={{ flex: '1 1 18rem', minWidth: 0 }}>
          <PlatformIcon platform={device.platform} />
          <Stack gap={4} style={{ minWidth: 0 }}>
            <Group gap="xs">
              <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                {device.hostname}
              </Text>
              <PlatformBadge platform={device.platform} />
            </Group>
            <Text size="sm">
              <Text span c="dimmed" size="sm">
                Accounts:{' '}
              </Text>
              {accountsText(device, 'No accounts reported yet')}
            </Text>
            <Text size="sm" c="dimmed">
              Asked <RelativeTime iso={device.created_at} />
            </Text>
            <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
              {device.system_id}
            </Text>
          </Stack>
        </Group>
        <DecisionButtons device={device} onDecided={onDecided} />
      </Group>
    </Paper>
  );
}

function WaitingSection({ devices, onDecided }: { devices: DeviceView[]; onDecided: () => void }) {
  const session = useSignedIn();
  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      component="section"
      aria-labelledby="waiting-title"
      style={{ borderColor: 'var(--mantine-color-hearth-3)' }}
    >
      <Stack gap="md">
        <Stack gap={4}>
          <Group gap="xs">
            <Title order={2} fz="lg" id="waiting-title">
              Waiting for approval
            </Title>
            <Badge color="hearth" variant="filled" circle aria-label={plural(devices.length, 'device')}>
              {devices.length}
            </Badge>
          </Group>
          <Text size="sm" c="dimmed">
            These devices asked to join {session.household.name}. Approve the ones you recognise; Hearth looks
            after a device only once it is approved.
          </Text>
        </Stack>
        <Stack gap="sm">
          {devices.map((device) => (
            <PendingDevice key={device.system_id} device={device} onDecided={onDecided} />
          ))}
        </Stack>
      </Stack>
    </Card>
  );
}

function DeviceRow({ device, users }: { device: DeviceView; users: DeviceChild[] }) {
  return (
    <UnstyledButton
      component={Link}
      to={`/devices/${encodeURIComponent(device.system_id)}`}
      p="md"
      data-testid="device-row"
      style={{ display: 'block', borderRadius: 'var(--mantine-radius-md)' }}
      className="hearth-row"
    >
      <Group wrap="nowrap" gap="md" align="flex-start">
        <PlatformIcon platform={device.platform} />
        <Stack gap={6} style={{ flex: 1, minWidth: 0 }}>
          <Group gap="xs" align="baseline">
            <Text fw={600} style={{ overflowWrap: 'anywhere' }} data-testid="device-name">
              {device.display_name}
            </Text>
            {device.hostname !== device.display_name ? (
              <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {device.hostname}
              </Text>
            ) : null}
          </Group>
          <Group gap={6}>
            <PlatformBadge platform={device.platform} />
            <DeviceStatusBadge status={device.status} />
            {isConsolePlatform(device.platform) ? (
              device.status === 'approved' ? (
                <DeviceConsoleSync systemId={device.system_id} platform={device.platform} />
              ) : null
            ) : (
              <>
                <OnlineBadge online={device.online} />
                <LastSeen device={device} />
              </>
            )}
          </Group>
          <Text size="sm" c={users.length ? undefined : 'dimmed'}>
            {users.length ? (
              <>
                Used by <b>{childNames(users)}</b>
              </>
            ) : (
              'Not linked to a child yet'
            )}
          </Text>
        </Stack>
        <IconChevronRight size={18} />
      </Group>
    </UnstyledButton>
  );
}

export function DevicesPage() {
  const devices = useDevices();
  const users = useUsers();
  const { reload: reloadDevices } = devices;
  const { reload: reloadUsers } = users;
  const refresh = useCallback(() => {
    reloadDevices();
    reloadUsers();
  }, [reloadDevices, reloadUsers]);

  const items = devices.data?.items;
  const pending = items?.filter((d) => d.status === 'pending') ?? [];
  const decided = (items ?? [])
    .filter((d) => d.status !== 'pending')
    .sort((a, b) => (STATUS_ORDER[a.status] ?? 3) - (STATUS_ORDER[b.status] ?? 3));
  const byDevice = childrenByDevice(users.data?.items);

  return (
    <>
      <PageHeader
        title="Devices"
        description="Computers, phones and consoles that run Hearth, with who uses them and whether they are online."
        actions={
          <Button component={Link} to="/devices/add" leftSection={<IconPlus size={16} />}>
            Add device
          </Button>
        }
      />
      <Stack gap="lg">
        {devices.error && !items ? <ErrorAlert error={devices.error} onRetry={devices.reload} /> : null}
        {items ? <StaleNotice error={devices.error} /> : null}
        {!items && !devices.error ? (
          <Stack gap="sm" aria-busy="true">
            <Skeleton h={96} radius="lg" />
            <Skeleton h={88} radius="md" />
            <Skeleton h={88} radius="md" />
          </Stack>
        ) : null}
        {pending.length ? <WaitingSection devices={pending} onDecided={refresh} /> : null}
        {items?.length === 0 ? (
          <Card withBorder radius="lg" py="xl">
            <EmptyState
              icon={<IconDevices size={28} />}
              variant="light"
              title="No devices yet"
              description="Pair a computer, phone or tablet with Hearth; it then waits here for your approval."
            >
              <EmptyState.Actions>
                <Button component={Link} to="/devices/add" leftSection={<IconPlus size={16} />}>
                  Add device
                </Button>
              </EmptyState.Actions>
            </EmptyState>
          </Card>
        ) : null}
        {decided.length ? (
          <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="all-devices-title">
            <Stack gap="sm">
              <Group gap="xs" justify="space-between">
                <Title order={2} fz="lg" id="all-devices-title">
                  All devices
                </Title>
                <Text size="sm" c="dimmed">
                  {plural(decided.filter((d) => d.online).length, 'device')} online
                </Text>
              </Group>
              <Stack gap={2} component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
                {decided.map((device) => (
                  <li key={device.system_id}>
                    <DeviceRow device={device} users={byDevice.get(device.system_id) ?? []} />
                  </li>
                ))}
              </Stack>
            </Stack>
          </Card>
        ) : null}
      </Stack>
    </>
  );
}
