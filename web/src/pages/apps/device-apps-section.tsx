import {
  Badge,
  Box,
  Button,
  Card,
  EmptyState,
  Group,
  Loader,
  Select,
  Skeleton,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useMemo, useState } from 'react';
import { type DeviceInventory, type InstalledApp, useDeviceInventory } from '../../api/inventory';
import type { DeviceView } from '../../api/types';
import {
  AppIcon,
  AppSearch,
  byAppName,
  IconApps,
  ListCount,
  matchesQuery,
  NoMatches,
  useShownRows,
} from '../../components/app-bits';
import { RelativeTime } from '../../components/device-bits';
import { IconCheck, IconClock, IconRefresh } from '../../components/icons';
import { ErrorAlert } from '../../components/page';
import { plural } from '../../labels';
import { type Rescan, useRescan } from './use-rescan';

const ALL_ACCOUNTS = '';

function InstalledAppRow({ app, first }: { app: InstalledApp; first: boolean }) {
  return (
    <Box
      component="li"
      py="sm"
      data-testid="installed-app"
      style={{ borderTop: first ? undefined : '1px solid var(--mantine-color-default-border)' }}
    >
      <Group wrap="nowrap" gap="md" align="flex-start">
        <AppIcon url={app.icon_url} />
        <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
          <Group gap="xs" align="baseline" wrap="wrap">
            <Text fw={600} style={{ overflowWrap: 'anywhere' }} data-testid="app-name">
              {app.application_name}
            </Text>
            {app.version_name ? (
              <Badge variant="light" color="gray" radius="sm" size="sm" style={{ maxWidth: '100%' }}>
                Version {app.version_name}
              </Badge>
            ) : null}
          </Group>
          <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {app.identifier}
          </Text>
          <Text size="xs" c="dimmed">
            Account <b>{app.linux_username}</b> · First seen <RelativeTime iso={app.first_seen_at} /> · Last
            seen <RelativeTime iso={app.last_seen_at} />
          </Text>
        </Stack>
      </Group>
    </Box>
  );
}

/** What came of "Rescan now", in words, announced politely. */
function RescanProgress({ rescan }: { rescan: Rescan }) {
  const { phase } = rescan;
  const line =
    phase === 'asking'
      ? { icon: <Loader size={14} color="hearth" />, text: 'Asking the device…', color: undefined }
      : phase === 'waiting'
        ? { icon: <Loader size={14} color="hearth" />, text: 'Waiting for the new list…', color: undefined }
        : phase === 'offline'
          ? {
              icon: <IconClock size={16} />,
              text: 'The device is offline; it will rescan when it reconnects.',
              color: 'yellow',
            }
          : phase === 'quiet'
            ? {
                icon: <IconClock size={16} />,
                text: 'No new list has come yet. If nothing changed on the device, the list below is already up to date.',
                color: 'dimmed',
              }
            : phase === 'done'
              ? {
                  icon: <IconCheck size={16} />,
                  text: 'Updated with the newest list from the device.',
                  color: 'teal',
                }
              : null;
  return (
    <>
      <div aria-live="polite">
        {line ? (
          <Group gap={8} wrap="nowrap" c={line.color} data-testid="rescan-progress">
            <Box style={{ display: 'flex', flex: 'none' }}>{line.icon}</Box>
            <Text size="sm" fw={500}>
              {line.text}
            </Text>
          </Group>
        ) : null}
      </div>
      <ErrorAlert error={rescan.failure} title="The device was not asked" />
    </>
  );
}

function ReportLine({ data }: { data: DeviceInventory }) {
  if (!data.reported_at) return <>No list from this device yet</>;
  return (
    <>
      {plural(data.count, 'app')} · Last report <RelativeTime iso={data.reported_at} />
    </>
  );
}

/** The device's installed apps: a searchable list with icons, and "Rescan now". */
export function InstalledAppsSection({ device }: { device: DeviceView }) {
  const systemId = device.system_id;
  const inventory = useDeviceInventory(systemId);
  const { reload } = inventory;
  const data = inventory.data;
  const rescan = useRescan(systemId, data, reload);

  const [query, setQuery] = useState('');
  const [account, setAccount] = useState<string>(ALL_ACCOUNTS);
  const accounts = useMemo(() => [...new Set(data?.items.map((a) => a.linux_username))].sort(), [data]);
  const sorted = useMemo(() => [...(data?.items ?? [])].sort(byAppName), [data]);
  const activeAccount = accounts.includes(account) ? account : ALL_ACCOUNTS;
  const matching = sorted.filter(
    (app) =>
      (activeAccount === ALL_ACCOUNTS || app.linux_username === activeAccount) &&
      matchesQuery(query, [app.application_name, app.identifier, app.version_name, app.linux_username]),
  );
  const { shown, more } = useShownRows(matching, `${query}|${activeAccount}`);
  const filtered = activeAccount !== ALL_ACCOUNTS || query.trim() !== '';
  const approved = device.status === 'approved';
  const busy = rescan.phase === 'asking';

  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="installed-apps-title">
      <Stack gap="md">
        <Group justify="space-between" align="flex-start" gap="sm">
          <Stack gap={4} style={{ flex: '1 1 16rem' }}>
            <Title order={2} fz="lg" id="installed-apps-title">
              Installed apps
            </Title>
            <Text size="sm" c="dimmed" data-testid="inventory-summary">
              {data ? <ReportLine data={data} /> : 'Loading the list…'}
            </Text>
          </Stack>
          {approved ? (
            <Button
              variant="default"
              onClick={rescan.start}
              loading={busy}
              disabled={!data}
              leftSection={<IconRefresh size={16} />}
            >
              Rescan now
            </Button>
          ) : null}
        </Group>
        <RescanProgress rescan={rescan} />
        {inventory.error ? (
          <ErrorAlert
            error={inventory.error}
            title={data ? 'The list may be out of date' : 'Could not load the installed apps'}
            onRetry={reload}
          />
        ) : null}
        {!data && !inventory.error ? (
          <Stack gap="sm" aria-busy="true">
            <Skeleton h={36} radius="md" />
            <Skeleton h={56} radius="md" />
            <Skeleton h={56} radius="md" />
          </Stack>
        ) : null}
        {data && data.items.length === 0 ? (
          <EmptyState
            size="sm"
            icon={<IconApps size={24} />}
            withIndicatorBackground
            title={data.reported_at ? 'No apps on this device' : 'No apps reported yet'}
            description={
              data.reported_at
                ? 'The last list from this device was empty.'
                : approved
                  ? 'Apps appear when the Hearth agent on this device reports them. Rescan now asks it to do that straight away.'
                  : 'Apps appear when the Hearth agent on this device reports them, once the device is approved.'
            }
            py="md"
          />
        ) : null}
        {data && data.items.length > 0 ? (
          <>
            <Group gap="sm" align="center" wrap="wrap">
              <AppSearch value={query} onChange={setQuery} label="Search installed apps" />
              {accounts.length > 1 ? (
                <Select
                  aria-label="Account"
                  data={[
                    { value: ALL_ACCOUNTS, label: 'All accounts' },
                    ...accounts.map((u) => ({ value: u, label: `Account ${u}` })),
                  ]}
                  value={activeAccount}
                  onChange={(v) => setAccount(v ?? ALL_ACCOUNTS)}
                  allowDeselect={false}
                  style={{ flex: '0 1 12rem' }}
                />
              ) : null}
              <ListCount
                shown={matching.length}
                total={data.items.length}
                filtered={filtered}
                testId="inventory-count"
              />
            </Group>
            {matching.length ? (
              <Box>
                <Stack
                  gap={0}
                  component="ul"
                  aria-label="Installed apps"
                  style={{ listStyle: 'none', margin: 0, padding: 0 }}
                >
                  {shown.map((app, i) => (
                    <InstalledAppRow
                      key={`${app.linux_username}/${app.match_type}:${app.identifier}`}
                      app={app}
                      first={i === 0}
                    />
                  ))}
                </Stack>
                {more}
              </Box>
            ) : (
              <NoMatches query={query} />
            )}
          </>
        ) : null}
      </Stack>
    </Card>
  );
}
