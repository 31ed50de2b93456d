// The child's game consoles: each with the player who is the child there, today's playtime, when
// Hearth last synced it (consoles run no agent, so no "online" here) and what it could not hold.
import { Anchor, Badge, Card, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import { type ConsoleSyncItem, isConsolePlatform, useConsoleSyncBySystem } from '../../api/consoles';
import { useTimeUsage } from '../../api/time';
import type { ManagedUserView, Mapping } from '../../api/types';
import { ConsoleNotes, ConsoleSyncBadge } from '../../components/console-bits';
import { PlatformBadge, PlatformIcon } from '../../components/device-bits';
import { IconAlert } from '../../components/icons';
import { deviceName, formatMinutes, isGone } from '../../labels';
import { VENDORS } from '../consoles/console-words';

/** The child's console mappings, those still looked after first. */
export const consoleMappings = (child: ManagedUserView): Mapping[] =>
  child.mappings
    .filter((m) => isConsolePlatform(m.platform))
    .sort((a, b) => Number(isGone(a.device_status)) - Number(isGone(b.device_status)));

function ConsoleRow({
  mapping,
  sync,
  usedSeconds,
}: {
  mapping: Mapping;
  sync: ConsoleSyncItem | undefined;
  usedSeconds: number | null;
}) {
  const gone = isGone(mapping.device_status);
  const platform = mapping.platform ?? '';
  const vendor = isConsolePlatform(platform) ? VENDORS[platform] : null;
  return (
    <Paper withBorder radius="md" p="sm" component="li" data-testid="child-console">
      <Group wrap="nowrap" align="flex-start" gap="sm">
        <PlatformIcon platform={platform} />
        <Stack gap={4} style={{ flex: 1, minWidth: 0 }}>
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Group gap="xs">
              <Anchor
                component={Link}
                to={`/devices/${encodeURIComponent(mapping.system_id)}`}
                fw={600}
                style={{ overflowWrap: 'anywhere' }}
              >
                {deviceName(mapping)}
              </Anchor>
              <PlatformBadge platform={platform} />
            </Group>
            {sync ? (
              <Text size="sm" data-testid="child-console-player">
                <Text span c="dimmed" size="sm">
                  Plays as{' '}
                </Text>
                <b>{sync.player_name}</b>
              </Text>
            ) : null}
          </Stack>
          {gone ? (
            <Text size="sm" c="dimmed" data-testid="child-console-gone">
              No longer synced: {vendor ? `the ${vendor.name} account was unlinked` : 'it was unlinked'}.
              Remove it from its device page, or link the account and add it again.
            </Text>
          ) : (
            <Group gap="sm" wrap="wrap">
              <ConsoleSyncBadge lastSyncAt={sync?.last_sync_at ?? null} stale={sync?.stale} />
              {usedSeconds !== null ? (
                <Text size="sm">
                  <Text span c="dimmed" size="sm">
                    Today{' '}
                  </Text>
                  <Text span fw={600} size="sm" data-testid="child-console-today">
                    {formatMinutes(usedSeconds)}
                  </Text>
                </Text>
              ) : null}
            </Group>
          )}
          {!gone && sync?.error ? (
            <Group gap={6} wrap="nowrap" align="flex-start" c="red" data-testid="console-error">
              <IconAlert size={16} style={{ flex: 'none', marginTop: 2 }} />
              <Text size="sm">{sync.error}</Text>
            </Group>
          ) : null}
          {!gone && sync ? <ConsoleNotes notes={sync.notes} /> : null}
        </Stack>
      </Group>
    </Paper>
  );
}

export function ConsolesSection({ child }: { child: ManagedUserView }) {
  const mappings = consoleMappings(child);
  const sync = useConsoleSyncBySystem(mappings.map((m) => m.platform));
  const usage = useTimeUsage(child.id);
  if (!mappings.length) return null;
  const usedOn = (systemId: string) => {
    if (!usage.data) return null;
    return usage.data.devices
      .filter((d) => d.system_id === systemId)
      .reduce((sum, d) => sum + d.used_seconds, 0);
  };
  const active = mappings.filter((m) => !isGone(m.device_status)).length;
  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      component="section"
      aria-labelledby="child-consoles-title"
      data-testid="child-consoles"
    >
      <Stack gap="md">
        <Group justify="space-between" align="flex-start" gap="xs">
          <Stack gap={4} style={{ flex: '1 1 16rem' }}>
            <Group gap="xs">
              <Title order={2} fz="lg" id="child-consoles-title">
                Game consoles
              </Title>
              {active ? (
                <Badge variant="light" color="gray" radius="sm">
                  {active}
                </Badge>
              ) : null}
            </Group>
            <Text size="sm" c="dimmed">
              Hearth writes {child.name}’s routine to these consoles every 5 minutes and counts their playtime
              with the rest of the day.
            </Text>
          </Stack>
          <Anchor component={Link} to="/consoles" size="sm">
            Manage consoles
          </Anchor>
        </Group>
        <Stack gap="sm" component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
          {mappings.map((mapping) => (
            <ConsoleRow
              key={mapping.id}
              mapping={mapping}
              sync={sync.items.get(mapping.system_id)}
              usedSeconds={usedOn(mapping.system_id)}
            />
          ))}
        </Stack>
      </Stack>
    </Card>
  );
}
