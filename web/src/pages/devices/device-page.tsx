import {
  Alert,
  Anchor,
  Button,
  Card,
  DataList,
  EmptyState,
  Grid,
  Group,
  Modal,
  Skeleton,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useCallback, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { messageOf } from '../../api/client';
import { isConsolePlatform } from '../../api/consoles';
import { useUnenrollDevice } from '../../api/mutations';
import { useDevice, useUsers } from '../../api/resources';
import type { DeviceView } from '../../api/types';
import { DeviceConsoleSync } from '../../components/console-bits';
import { CopyField } from '../../components/copy-field';
import {
  accountsText,
  DeviceStatusBadge,
  LastSeen,
  OnlineBadge,
  PlatformBadge,
  PlatformIcon,
  RelativeTime,
} from '../../components/device-bits';
import { IconAlert, IconArrowLeft, IconChildren, IconGamepad, IconUnlink } from '../../components/icons';
import { ErrorAlert, notifySaved, PageHeader, StaleNotice } from '../../components/page';
import { DEVICE_STATUS_LABELS, platformLabel } from '../../labels';
import { useSession } from '../../session';
import { InstalledAppsSection } from '../apps/device-apps-section';
import { VENDORS } from '../consoles/console-words';
import { DevicePolicySections } from '../device-policy/device-policy-sections';
import { NotFoundPage } from '../not-found-page';
import { ClockTamperCard } from './clock-tamper-card';
import { DecisionButtons } from './decision-buttons';
import { childrenByDevice, type DeviceChild } from './device-children';
import { RemoveDeviceCard, RenameDeviceButton } from './device-manage';
import { OverlayStateCard } from './overlay-state-card';
import { PauseControls } from './pause-controls';

export function BackToDevices() {
  return (
    <Anchor component={Link} to="/devices" size="sm" mb="sm" style={{ display: 'inline-flex', gap: 6 }}>
      <IconArrowLeft size={16} /> All devices
    </Anchor>
  );
}

function ChildrenCard({ device, users }: { device: DeviceView; users: DeviceChild[] }) {
  const mapped = new Set(users.map((u) => u.linuxUsername));
  const others = device.linux_users.filter((u) => !mapped.has(u.username));
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="device-children-title">
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={2} fz="lg" id="device-children-title">
            Children on this device
          </Title>
          <Text size="sm" c="dimmed">
            {device.status === 'approved'
              ? 'Pausing a child here pauses them on all their devices at once; Resume lifts it again.'
              : 'Pausing and resuming work while the device is approved.'}
          </Text>
        </Stack>
        {users.length ? (
          <Stack gap="sm">
            {users.map((user) => (
              <PauseControls key={user.mappingId} device={device} user={user} />
            ))}
          </Stack>
        ) : (
          <EmptyState
            size="sm"
            icon={<IconChildren size={24} />}
            withIndicatorBackground
            title="No children on this device yet"
            description="Open a child’s page and add a device mapping with this device’s ID; you can then pause and resume it here."
            py="md"
          >
            <EmptyState.Actions>
              <Button component={Link} to="/children" variant="light">
                Go to children
              </Button>
            </EmptyState.Actions>
          </EmptyState>
        )}
        {others.length ? (
          <Text size="sm" c="dimmed">
            Other accounts on this device, not linked to a child:{' '}
            {others.map((u, i) => (
              <span key={u.username}>
                {i ? ', ' : ''}
                <b>{u.username}</b>
              </span>
            ))}
          </Text>
        ) : null}
      </Stack>
    </Card>
  );
}

/** The accounts the device reported, each with the child it is linked to. */
function accountsWithChildren(device: DeviceView, users: DeviceChild[]): string {
  const childOf = new Map(users.map((u) => [u.linuxUsername, u.child.name]));
  if (!childOf.size) return accountsText(device, 'None yet');
  if (!device.linux_users.length) return 'None yet';
  return device.linux_users
    .map((u) => {
      const child = childOf.get(u.username);
      return child ? `${u.username} (${child})` : u.username;
    })
    .join(', ');
}

/** A console's player (the account the vendor lists), with the child it is. */
function playersWithChildren(device: DeviceView, users: DeviceChild[]): string {
  const childOf = new Map(users.map((u) => [u.linuxUsername, u.child.name]));
  if (!device.linux_users.length) return 'None';
  return device.linux_users
    .map((u) => {
      const name = u.display_name ?? u.username;
      const child = childOf.get(u.username);
      return child && child !== name ? `${name} (${child})` : name;
    })
    .join(', ');
}

function AboutCard({ device, users }: { device: DeviceView; users: DeviceChild[] }) {
  const console = isConsolePlatform(device.platform);
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="device-about-title">
      <Stack gap="md">
        <Title order={2} fz="lg" id="device-about-title">
          About this device
        </Title>
        <DataList labelWidth="8.5rem" gap="xs" data-testid="device-details">
          <DataList.Item>
            <DataList.ItemLabel>Name</DataList.ItemLabel>
            <DataList.ItemValue style={{ overflowWrap: 'anywhere' }}>
              {device.display_name}
            </DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel>Hostname</DataList.ItemLabel>
            <DataList.ItemValue style={{ overflowWrap: 'anywhere' }}>{device.hostname}</DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel>Platform</DataList.ItemLabel>
            <DataList.ItemValue>{platformLabel(device.platform)}</DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel>Status</DataList.ItemLabel>
            <DataList.ItemValue>{DEVICE_STATUS_LABELS[device.status] ?? device.status}</DataList.ItemValue>
          </DataList.Item>
          {console ? (
            <DataList.Item>
              <DataList.ItemLabel>Player</DataList.ItemLabel>
              <DataList.ItemValue style={{ overflowWrap: 'anywhere' }}>
                {playersWithChildren(device, users)}
              </DataList.ItemValue>
            </DataList.Item>
          ) : (
            <>
              <DataList.Item>
                <DataList.ItemLabel>Connection</DataList.ItemLabel>
                <DataList.ItemValue>
                  {device.online ? (
                    'Online now'
                  ) : device.last_seen_at ? (
                    <RelativeTime iso={device.last_seen_at} prefix="Offline, last seen " />
                  ) : (
                    'Never connected'
                  )}
                </DataList.ItemValue>
              </DataList.Item>
              <DataList.Item>
                <DataList.ItemLabel>Agent version</DataList.ItemLabel>
                <DataList.ItemValue>{device.agent_version ?? 'Not reported'}</DataList.ItemValue>
              </DataList.Item>
              <DataList.Item>
                <DataList.ItemLabel>Accounts reported</DataList.ItemLabel>
                <DataList.ItemValue style={{ overflowWrap: 'anywhere' }}>
                  {accountsWithChildren(device, users)}
                </DataList.ItemValue>
              </DataList.Item>
            </>
          )}
          <DataList.Item>
            <DataList.ItemLabel>Last usage report</DataList.ItemLabel>
            <DataList.ItemValue data-testid="last-usage">
              {device.last_usage_at ? <RelativeTime iso={device.last_usage_at} /> : 'None yet'}
            </DataList.ItemValue>
          </DataList.Item>
          {console ? null : (
            <DataList.Item>
              <DataList.ItemLabel>Last app list</DataList.ItemLabel>
              <DataList.ItemValue data-testid="last-inventory">
                {device.last_inventory_at ? <RelativeTime iso={device.last_inventory_at} /> : 'None yet'}
              </DataList.ItemValue>
            </DataList.Item>
          )}
          <DataList.Item>
            <DataList.ItemLabel>{console ? 'Added' : 'First asked'}</DataList.ItemLabel>
            <DataList.ItemValue>
              <RelativeTime iso={device.created_at} />
            </DataList.ItemValue>
          </DataList.Item>
        </DataList>
        <CopyField
          label="Device ID"
          value={device.system_id}
          description={
            console
              ? 'Hearth’s name for this console in its records.'
              : 'Use it to link an account on this device to a child.'
          }
          monospace
        />
      </Stack>
    </Card>
  );
}

function UnenrollCard({ device, onUnenrolled }: { device: DeviceView; onUnenrolled: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const unenrollment = useUnenrollDevice();

  function unenroll() {
    unenrollment.mutate(device.system_id, {
      onSuccess: () => {
        notifySaved(`${device.display_name} is unenrolled.`);
        setConfirming(false);
        onUnenrolled();
      },
    });
  }

  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="unenroll-title">
      <Group justify="space-between" align="center" gap="md">
        <Stack gap={4} style={{ flex: '1 1 18rem' }}>
          <Title order={2} fz="lg" id="unenroll-title">
            Unenroll
          </Title>
          <Text size="sm" c="dimmed">
            Stop looking after this device. Its agent is told to stop and disconnects; to use it with Hearth
            again, pair it again.
          </Text>
        </Stack>
        <Button
          color="red"
          variant="light"
          leftSection={<IconUnlink size={16} />}
          onClick={() => {
            unenrollment.reset();
            setConfirming(true);
          }}
        >
          Unenroll device
        </Button>
      </Group>
      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title={`Unenroll ${device.display_name}?`}
        centered
      >
        <Stack gap="md">
          <Text size="sm">
            Hearth stops looking after {device.display_name}: nothing is paused or limited there any more, and
            its key stops working. If it is offline now, it is told as soon as it reconnects.
          </Text>
          <ErrorAlert
            error={unenrollment.error && messageOf(unenrollment.error)}
            title="The device was not unenrolled"
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={() => setConfirming(false)} data-autofocus>
              Cancel
            </Button>
            <Button
              color="red"
              loading={unenrollment.isPending}
              onClick={unenroll}
              leftSection={<IconUnlink size={16} />}
            >
              Unenroll
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Card>
  );
}

/** Consoles come and go with the family account linked on the Game consoles page. */
function ConsoleManageCard({ device }: { device: DeviceView }) {
  const vendor = isConsolePlatform(device.platform) ? VENDORS[device.platform] : null;
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="console-manage-title">
      <Group justify="space-between" align="center" gap="md">
        <Stack gap={4} style={{ flex: '1 1 18rem' }}>
          <Title order={2} fz="lg" id="console-manage-title">
            Synced through {vendor ? `your ${vendor.account}` : 'your family account'}
          </Title>
          <Text size="sm" c="dimmed">
            This console runs no Hearth agent. Every 5 minutes Hearth writes the child’s routine to it as its
            limits and brings its playtime home; Sync now, add or unlink consoles on the Game consoles page.
          </Text>
        </Stack>
        <Button component={Link} to="/consoles" variant="light" leftSection={<IconGamepad size={16} />}>
          Game consoles
        </Button>
      </Group>
    </Card>
  );
}

function StatusNotice({ device, onDecided }: { device: DeviceView; onDecided: () => void }) {
  if (device.status === 'pending') {
    return (
      <Alert variant="light" color="yellow" icon={<IconAlert />} title="Waiting for your approval">
        <Group justify="space-between" gap="sm">
          <Text size="sm">This device asked to join. Hearth looks after it once it is approved.</Text>
          <DecisionButtons device={device} onDecided={onDecided} />
        </Group>
      </Alert>
    );
  }
  if (device.status === 'rejected' || device.status === 'unenrolled') {
    return (
      <Alert variant="light" color="gray" icon={<IconAlert />} title={`This device is ${device.status}`}>
        Hearth does not look after it. If it pairs again it waits for approval on the Devices page.
      </Alert>
    );
  }
  return null;
}

function DeviceDetails({ systemId }: { systemId: string }) {
  const { isAdmin } = useSession();
  const device = useDevice(systemId);
  const users = useUsers();
  const { reload: reloadDevice } = device;
  const { reload: reloadUsers } = users;
  const refresh = useCallback(() => {
    reloadDevice();
    reloadUsers();
  }, [reloadDevice, reloadUsers]);
  const data = device.data;

  if (device.error?.code === 'not_found') {
    return (
      <NotFoundPage
        title="We couldn’t find that device"
        description="It may belong to a child you do not look after, or the link is not quite right."
        back={{ to: '/devices', label: 'Back to devices' }}
      />
    );
  }
  if (!data) {
    return (
      <>
        <BackToDevices />
        {device.error ? (
          <ErrorAlert error={device.error} onRetry={device.reload} title="Could not load this device" />
        ) : (
          <Stack gap="lg" aria-busy="true">
            <Skeleton h={48} w="40%" />
            <Skeleton h={180} radius="lg" />
            <Skeleton h={280} radius="lg" />
          </Stack>
        )}
      </>
    );
  }

  const mapped = childrenByDevice(users.data?.items).get(data.system_id) ?? [];
  const console = isConsolePlatform(data.platform);
  return (
    <>
      <BackToDevices />
      <PageHeader
        title={data.display_name}
        leading={<PlatformIcon platform={data.platform} size="xl" />}
        description={
          <Group gap={6}>
            <PlatformBadge platform={data.platform} />
            <DeviceStatusBadge status={data.status} />
            {console ? (
              data.status === 'approved' ? (
                <DeviceConsoleSync systemId={data.system_id} platform={data.platform} />
              ) : null
            ) : (
              <>
                <OnlineBadge online={data.online} />
                <LastSeen device={data} />
              </>
            )}
          </Group>
        }
        actions={data.status === 'approved' || isAdmin ? <RenameDeviceButton device={data} /> : null}
      />
      <Stack gap="lg">
        <StaleNotice error={device.error} />
        <StatusNotice device={data} onDecided={refresh} />
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, md: 7 }}>
            <ChildrenCard device={data} users={mapped} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 5 }}>
            <AboutCard device={data} users={mapped} />
          </Grid.Col>
        </Grid>
        {data.status === 'approved' && !console ? <OverlayStateCard device={data} users={mapped} /> : null}
        {data.status === 'approved' && !console ? <ClockTamperCard device={data} /> : null}
        <DevicePolicySections device={data} users={mapped} />
        {console ? null : <InstalledAppsSection device={data} />}
        {console && data.status === 'approved' ? <ConsoleManageCard device={data} /> : null}
        {isAdmin && data.status === 'approved' && !console ? (
          <UnenrollCard device={data} onUnenrolled={refresh} />
        ) : null}
        {isAdmin && (data.status === 'rejected' || data.status === 'unenrolled') ? (
          <RemoveDeviceCard device={data} />
        ) : null}
      </Stack>
    </>
  );
}

export function DevicePage() {
  const { system_id = '' } = useParams();
  // A fresh component per device, so nothing from the previous device lingers while loading.
  return <DeviceDetails key={system_id} systemId={system_id} />;
}
