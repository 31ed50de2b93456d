import {
  AppShell,
  Badge,
  Box,
  Burger,
  Button,
  Divider,
  Group,
  NavLink,
  ScrollArea,
  Stack,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type ComponentType, useState } from 'react';
import { Link, matchPath, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { useUnreadAlerts } from '../api/alerts';
import { usePendingApprovalCount } from '../api/approvals';
import { plural, ROLE_LABELS, shortCount } from '../labels';
import { useSession, useSignedIn } from '../session';
import { AccessRequestNotifier } from './access-request-notifier';
import {
  HearthMark,
  IconBell,
  IconBlock,
  IconChildren,
  IconDevices,
  IconGamepad,
  IconGlobe,
  IconHome,
  IconInbox,
  IconSignOut,
  IconSliders,
} from './icons';
import { notifyError } from './page';

interface NavItem {
  to: string;
  label: string;
  icon: ComponentType<{ size?: number }>;
  exact?: boolean;
}

const NAV: NavItem[] = [
  { to: '/', label: 'Dashboard', icon: IconHome, exact: true },
  { to: '/devices', label: 'Devices', icon: IconDevices },
  { to: '/consoles', label: 'Game consoles', icon: IconGamepad },
  { to: '/children', label: 'Children', icon: IconChildren },
  { to: '/access-requests', label: 'Access Requests', icon: IconInbox },
  { to: '/online-accounts', label: 'Online Accounts', icon: IconGlobe },
  { to: '/blocklists', label: 'Blocklists', icon: IconBlock },
  { to: '/alerts', label: 'Alerts', icon: IconBell },
  { to: '/settings', label: 'Settings', icon: IconSliders },
];

function SignOutButton({ fullWidth = false }: { fullWidth?: boolean }) {
  const { signOut } = useSession();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  return (
    <Button
      variant="default"
      size="sm"
      fullWidth={fullWidth}
      loading={busy}
      leftSection={<IconSignOut size={16} />}
      onClick={async () => {
        setBusy(true);
        try {
          await signOut();
          navigate('/login', { replace: true });
        } catch (err) {
          notifyError(err, 'Could not sign out');
          setBusy(false);
        }
      }}
    >
      Sign out
    </Button>
  );
}

/** How many alerts wait to be read, beside "Alerts" in the navigation. */
function UnreadBadge() {
  const unread = useUnreadAlerts();
  if (!unread?.count) return null;
  const label = unread.more ? 'more than 99 unread alerts' : plural(unread.count, 'unread alert');
  return (
    <Badge size="sm" circle={unread.count < 10} color="hearth" aria-label={label} data-testid="unread-badge">
      {unread.more ? '99+' : shortCount(unread.count)}
    </Badge>
  );
}

/** How many approval requests wait for a decision, beside "Access Requests". */
function PendingApprovalsBadge() {
  const count = usePendingApprovalCount();
  if (!count) return null;
  return (
    <Badge
      size="sm"
      circle={count < 10}
      color="hearth"
      aria-label={`${plural(count, 'approval')} waiting`}
      data-testid="pending-approvals-badge"
    >
      {shortCount(count)}
    </Badge>
  );
}

const NAV_BADGES: Record<string, ComponentType> = {
  '/alerts': UnreadBadge,
  '/access-requests': PendingApprovalsBadge,
};

/** The signed-in frame: header, navigation (a drawer behind the burger on phones) and the page. */
export function AppFrame() {
  const session = useSignedIn();
  const [opened, { toggle, close }] = useDisclosure(false);
  const location = useLocation();

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 250, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding={{ base: 'md', sm: 'xl' }}
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={opened ? 'Close navigation' : 'Open navigation'}
            />
            <UnstyledButton component={Link} to="/" onClick={close} aria-label="Hearth dashboard">
              <HearthMark />
            </UnstyledButton>
            <Box style={{ minWidth: 0 }}>
              <Text fw={700} size="md" lh={1.2} truncate="end" data-testid="household-name">
                {session.household.name}
              </Text>
              <Text size="xs" c="dimmed" lh={1.2}>
                Hearth
              </Text>
            </Box>
          </Group>
          <Group gap="sm" wrap="nowrap" visibleFrom="sm">
            <Box ta="right">
              <Text size="sm" fw={600} lh={1.2}>
                {session.parent.username}
              </Text>
              <Text size="xs" c="dimmed" lh={1.2}>
                {ROLE_LABELS[session.role]}
              </Text>
            </Box>
            <SignOutButton />
          </Group>
        </Group>
      </AppShell.Header>

      <AppShell.Navbar
        p="sm"
        aria-label="Main navigation"
        className="hearth-navbar"
        data-closed={opened ? undefined : true}
      >
        <AppShell.Section grow component={ScrollArea}>
          <Stack gap={4}>
            {NAV.map((item) => {
              const active = item.exact
                ? location.pathname === item.to
                : matchPath({ path: item.to, end: false }, location.pathname) !== null;
              const Icon = item.icon;
              const Count = NAV_BADGES[item.to];
              return (
                <NavLink
                  key={item.to}
                  component={Link}
                  to={item.to}
                  label={item.label}
                  leftSection={<Icon size={20} />}
                  rightSection={Count ? <Count /> : undefined}
                  active={active}
                  aria-current={active ? 'page' : undefined}
                  onClick={close}
                  variant="light"
                  style={{ borderRadius: 'var(--mantine-radius-md)' }}
                  fw={500}
                />
              );
            })}
          </Stack>
        </AppShell.Section>
        <AppShell.Section hiddenFrom="sm">
          <Divider my="sm" />
          <Group justify="space-between" mb="sm" px="xs" wrap="nowrap">
            <Text size="sm" fw={600} truncate="end">
              {session.parent.username}
            </Text>
            <Badge variant="light" size="sm">
              {ROLE_LABELS[session.role]}
            </Badge>
          </Group>
          <SignOutButton fullWidth />
        </AppShell.Section>
      </AppShell.Navbar>

      <AccessRequestNotifier />
      <AppShell.Main className="hearth-main">
        <Box maw={1100} mx="auto">
          <Outlet />
        </Box>
      </AppShell.Main>
    </AppShell>
  );
}
