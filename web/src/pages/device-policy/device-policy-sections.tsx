import { Card, Group, Tabs, Text } from '@mantine/core';
import { useState } from 'react';
import { useLocation } from 'react-router-dom';
import { useChildRights } from '../../api/rights';
import type { DeviceView } from '../../api/types';
import { IconLock } from '../../components/icons';
import { useSession } from '../../session';
import { childNames, type DeviceChild } from '../devices/device-children';
import { AndroidPolicyPanel } from './android-policy-panel';
import { RestrictionsPanel, restrictionsAnchor } from './restrictions-panel';
import { ScreenshotsGallery } from './screenshots-gallery';

/** For the children this parent may not manage here: who can, instead of their controls. */
function NotYours({ users }: { users: DeviceChild[] }) {
  if (!users.length) return null;
  const names = childNames(users);
  return (
    <Card withBorder radius="lg" padding="lg" data-testid="policies-not-allowed">
      <Group gap="sm" wrap="nowrap" align="flex-start">
        <IconLock size={20} style={{ flex: 'none', marginTop: 2 }} />
        <Text size="sm" c="dimmed">
          Restrictions and screenshots for {names} are for parents who may manage {names}’s rules. The
          household’s owner or an admin can give you that in Settings.
        </Text>
      </Group>
    </Card>
  );
}

/**
 * Each account's Restrictions; with several children on the device, one at a time behind a tab per
 * child (the one a link from a child's page names first), so the page does not run to nine switches a
 * child.
 */
function RestrictionsTabs({ systemId, users }: { systemId: string; users: DeviceChild[] }) {
  const { hash } = useLocation();
  const named = users.find((u) => hash === `#${restrictionsAnchor(u.mappingId)}`);
  const [active, setActive] = useState<string | null>(named?.mappingId ?? users[0]?.mappingId ?? null);
  const panel = (user: DeviceChild) => (
    <RestrictionsPanel
      systemId={systemId}
      mappingId={user.mappingId}
      linuxUsername={user.linuxUsername}
      childName={user.child.name}
    />
  );
  if (users.length === 1 && users[0]) return panel(users[0]);
  // A tab whose account left the device gives way to the first.
  const shown = users.some((u) => u.mappingId === active) ? active : (users[0]?.mappingId ?? null);
  const names = users.map((u) => u.child.name);
  const label = (user: DeviceChild) =>
    names.filter((n) => n === user.child.name).length > 1
      ? `${user.child.name} (${user.linuxUsername})`
      : user.child.name;
  return (
    <Tabs value={shown} onChange={setActive} variant="pills" keepMounted={false}>
      <Tabs.List aria-label="Restrictions for" mb="sm">
        {users.map((user) => (
          <Tabs.Tab
            key={user.mappingId}
            value={user.mappingId}
            data-testid={`restrictions-tab-${user.linuxUsername}`}
          >
            {label(user)}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {users.map((user) => (
        <Tabs.Panel key={user.mappingId} value={user.mappingId}>
          {panel(user)}
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}

/**
 * A device's policies (DESIGN §12), for the children on it whose rules this parent may manage: on a
 * Linux computer each account's Restrictions and the Screenshots gallery; on an Android phone its
 * device-wide policy and each account's.
 */
export function DevicePolicySections({ device, users }: { device: DeviceView; users: DeviceChild[] }) {
  const rights = useChildRights();
  const { isAdmin } = useSession();
  if (device.status !== 'approved' || !rights.known) return null;
  if (device.platform !== 'linux' && device.platform !== 'android') return null;
  const managed = users.filter((u) => rights.canManage(u.child.id));
  const others = users.filter((u) => !rights.canManage(u.child.id));

  if (device.platform === 'android') {
    return (
      <>
        {isAdmin || managed.length ? (
          <AndroidPolicyPanel
            systemId={device.system_id}
            mappingId={null}
            title="Phone-wide policy"
            description="Hearth’s device-owner policy for the whole phone, whoever uses it."
          />
        ) : null}
        {managed.map((user) => (
          <AndroidPolicyPanel
            key={user.mappingId}
            systemId={device.system_id}
            mappingId={user.mappingId}
            title={`Policy for ${user.child.name}`}
            description={`Only ${user.child.name}’s profile (${user.linuxUsername}) on this phone.`}
          />
        ))}
        <NotYours users={others} />
      </>
    );
  }
  return (
    <>
      {managed.length ? <RestrictionsTabs systemId={device.system_id} users={managed} /> : null}
      {managed.length ? <ScreenshotsGallery device={device} users={managed} /> : null}
      <NotYours users={others} />
    </>
  );
}
