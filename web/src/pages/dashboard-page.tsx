import {
  Badge,
  Box,
  Button,
  Card,
  EmptyState,
  Group,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  ThemeIcon,
  Title,
  UnstyledButton,
} from '@mantine/core';
import type { ComponentType } from 'react';
import { Link } from 'react-router-dom';
import { useDashboard, useUsers } from '../api/resources';
import { useTimeUsage } from '../api/time';
import type { DashboardView, ManagedUserView } from '../api/types';
import { AlertItem } from '../components/alert-item';
import { ChildAvatar, ChildTierLine } from '../components/child-bits';
import { IconBell, IconChevronRight, IconDevices, IconHeart, IconInbox, IconPlus } from '../components/icons';
import { ErrorAlert, PageHeader } from '../components/page';
import { pausedUntilText, StateBadge } from '../components/time-bits';
import { formatMinutes } from '../labels';
import { useSession, useSignedIn } from '../session';

type ChildStatus = DashboardView['users'][number];

function CountCard({
  to,
  count,
  label,
  icon: Icon,
  testId,
}: {
  to: string;
  count: number | undefined;
  /** The words under the number, for one and for several: the link is named by what it shows. */
  label: { one: string; other: string };
  icon: ComponentType<{ size?: number }>;
  testId: string;
}) {
  const waiting = !!count;
  return (
    <UnstyledButton
      component={Link}
      to={to}
      className="hearth-count"
      data-waiting={waiting || undefined}
      data-testid={testId}
    >
      <Group wrap="nowrap" gap="md" align="center">
        <ThemeIcon
          variant="light"
          color={waiting ? 'hearth' : 'gray'}
          size={44}
          radius="md"
          data-count-decoration
        >
          <Icon size={22} />
        </ThemeIcon>
        <Stack gap={0} style={{ minWidth: 0, flex: 1 }}>
          {count === undefined ? (
            <Skeleton h={30} w={36} my={2} />
          ) : (
            <Text fz={28} fw={700} lh={1.1} data-testid="count">
              {count}
            </Text>
          )}
          <Text size="sm" c="dimmed" lh={1.3}>
            {count === 1 ? label.one : label.other}
          </Text>
        </Stack>
        <Box data-count-decoration lh={0}>
          <IconChevronRight size={18} />
        </Box>
      </Group>
    </UnstyledButton>
  );
}

function ChildCard({ child, status }: { child: ManagedUserView; status: ChildStatus | undefined }) {
  const usage = useTimeUsage(child.id).data;
  return (
    <Card withBorder radius="lg" padding="lg" data-testid="child-card">
      <Stack gap="md" h="100%" justify="space-between">
        <Group wrap="nowrap" align="flex-start" gap="md">
          <ChildAvatar name={child.name} size="lg" />
          <Stack gap={6} style={{ minWidth: 0, flex: 1 }}>
            <Group gap="xs" justify="space-between" wrap="nowrap" align="flex-start">
              <Title order={3} fz="lg" style={{ overflowWrap: 'anywhere' }}>
                {child.name}
              </Title>
              {status ? (
                <Badge
                  variant="dot"
                  color={status.online ? 'teal' : 'gray'}
                  radius="sm"
                  data-testid="child-online"
                  style={{ flexShrink: 0 }}
                >
                  {status.online ? 'Online' : 'Offline'}
                </Badge>
              ) : null}
            </Group>
            <ChildTierLine child={child} />
            {usage ? (
              <Group gap={6}>
                <StateBadge state={usage.state} />
                {usage.state === 'paused' ? (
                  <Text size="xs" c="dimmed">
                    {pausedUntilText(usage)}
                  </Text>
                ) : null}
              </Group>
            ) : null}
          </Stack>
        </Group>
        <SimpleGrid cols={2} spacing="sm" className="hearth-today" data-testid="child-today">
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              Used today
            </Text>
            {status ? (
              <Text fw={600}>{formatMinutes(status.used_seconds_today)}</Text>
            ) : (
              <Skeleton h={20} w={60} mt={2} />
            )}
          </Stack>
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              Left today
            </Text>
            {status ? (
              <Text fw={600}>
                {status.remaining_seconds === null ? 'No limit' : formatMinutes(status.remaining_seconds)}
              </Text>
            ) : (
              <Skeleton h={20} w={60} mt={2} />
            )}
          </Stack>
        </SimpleGrid>
        <Button
          component={Link}
          to={`/children/${encodeURIComponent(child.id)}`}
          variant="light"
          rightSection={<IconChevronRight size={16} />}
          aria-label={`Open ${child.name}`}
        >
          Open
        </Button>
      </Stack>
    </Card>
  );
}

function ChildrenSection({
  list: children,
  statuses,
  error,
  onRetry,
}: {
  list: ManagedUserView[] | undefined;
  statuses: Map<string, ChildStatus>;
  error: Parameters<typeof ErrorAlert>[0]['error'];
  onRetry: () => void;
}) {
  const { isAdmin } = useSession();
  return (
    <Stack gap="md" component="section" aria-labelledby="children-title">
      <Group justify="space-between">
        <Title order={2} fz="xl" id="children-title">
          Children
        </Title>
        {children?.length && isAdmin ? (
          <Button component={Link} to="/children" variant="subtle" leftSection={<IconPlus size={16} />}>
            Add child
          </Button>
        ) : null}
      </Group>
      {error && !children ? <ErrorAlert error={error} onRetry={onRetry} /> : null}
      {!children && !error ? (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} aria-busy="true">
          <Skeleton h={220} radius="lg" />
          <Skeleton h={220} radius="lg" />
          <Skeleton h={220} radius="lg" visibleFrom="lg" />
        </SimpleGrid>
      ) : null}
      {children?.length === 0 ? (
        <Card withBorder radius="lg" py="xl">
          <EmptyState
            icon={<IconHeart size={28} />}
            variant="light"
            title={isAdmin ? 'Add your first child' : 'No children to show yet'}
            description={
              isAdmin
                ? 'Hearth looks after your children’s devices. Start by adding a child; then connect the devices they use.'
                : 'An owner or admin of the household can add children and share them with you.'
            }
          >
            {isAdmin ? (
              <EmptyState.Actions>
                <Button component={Link} to="/children" leftSection={<IconPlus size={16} />}>
                  Add your first child
                </Button>
              </EmptyState.Actions>
            ) : null}
          </EmptyState>
        </Card>
      ) : null}
      {children?.length ? (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {children.map((child) => (
            <ChildCard key={child.id} child={child} status={statuses.get(child.id)} />
          ))}
        </SimpleGrid>
      ) : null}
    </Stack>
  );
}

// The dashboard keeps to the latest few; the Alerts page has the rest.
const RECENT_ALERTS_SHOWN = 5;

function RecentAlerts({ dashboard, failed }: { dashboard: DashboardView | undefined; failed: boolean }) {
  const alerts = dashboard?.recent_alerts.slice(0, RECENT_ALERTS_SHOWN);
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="recent-alerts-title">
      <Stack gap="md">
        <Group justify="space-between" gap="sm">
          <Title order={2} fz="lg" id="recent-alerts-title">
            Recent alerts
          </Title>
          <Button
            component={Link}
            to="/alerts"
            variant="subtle"
            size="compact-sm"
            rightSection={<IconChevronRight size={14} />}
          >
            See all alerts
          </Button>
        </Group>
        {!alerts && failed ? (
          <Text size="sm" c="dimmed">
            Recent alerts show here once Hearth can load the summary.
          </Text>
        ) : null}
        {!alerts && !failed ? (
          <Stack gap="sm" aria-busy="true">
            <Skeleton h={96} radius="md" />
            <Skeleton h={96} radius="md" />
          </Stack>
        ) : null}
        {alerts?.length === 0 ? (
          <Text size="sm" c="dimmed">
            Nothing new. Requests from your children and alerts from their devices show up here the moment
            they happen.
          </Text>
        ) : null}
        {alerts?.length ? (
          <Stack
            gap="sm"
            component="ul"
            aria-label="Recent alerts"
            style={{ listStyle: 'none', margin: 0, padding: 0 }}
          >
            {alerts.map((alert) => (
              <li key={alert.id}>
                <AlertItem alert={alert} />
              </li>
            ))}
          </Stack>
        ) : null}
      </Stack>
    </Card>
  );
}

export function DashboardPage() {
  const session = useSignedIn();
  const dashboard = useDashboard();
  const users = useUsers();

  const data = dashboard.data;
  const counts = data?.counts;
  const statuses = new Map((data?.users ?? []).map((u) => [u.id, u]));

  return (
    <>
      <PageHeader
        title={session.household.name}
        documentTitle="Dashboard"
        description={`Hello, ${session.parent.username}. Here is your household at a glance.`}
      />
      <Stack gap="xl">
        {dashboard.error && !data ? (
          <ErrorAlert error={dashboard.error} onRetry={dashboard.reload} title="Could not load the summary" />
        ) : null}
        <SimpleGrid
          cols={3}
          spacing={{ base: 'xs', sm: 'md' }}
          aria-label="Waiting for you"
          component="section"
        >
          <CountCard
            to="/devices"
            count={counts?.pending_devices}
            label={{ one: 'Device waiting', other: 'Devices waiting' }}
            icon={IconDevices}
            testId="count-pending-devices"
          />
          <CountCard
            to="/access-requests"
            count={counts?.pending_approvals}
            label={{ one: 'Approval waiting', other: 'Approvals waiting' }}
            icon={IconInbox}
            testId="count-pending-approvals"
          />
          <CountCard
            to="/alerts?unread=1"
            count={counts?.unread_alerts}
            label={{ one: 'Unread alert', other: 'Unread alerts' }}
            icon={IconBell}
            testId="count-unread-alerts"
          />
        </SimpleGrid>
        <ChildrenSection
          list={users.data?.items}
          statuses={statuses}
          error={users.error}
          onRetry={users.reload}
        />
        <RecentAlerts dashboard={data} failed={!!dashboard.error} />
      </Stack>
    </>
  );
}
