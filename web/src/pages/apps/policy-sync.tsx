import { Card, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { AppPolicy, PolicySync } from '../../api/inventory';
import { SYNC_LABELS, SyncBadge } from '../../components/app-bits';
import { RelativeTime } from '../../components/device-bits';
import { plural } from '../../labels';

/** "Sent to 2 devices." / "Sent to 1 device; 1 gets the rules when it connects." */
export function deliveryText(sync: PolicySync[]): string {
  if (!sync.length) return 'No device is linked yet; the rules go to each device once it is.';
  const synced = sync.filter((s) => s.status === 'synced').length;
  const waiting = sync.filter((s) => s.status === 'pending').length;
  const failed = sync.filter((s) => s.status === 'failed').length;
  const parts: string[] = [];
  if (synced) parts.push(`sent to ${plural(synced, 'device')}`);
  if (waiting)
    parts.push(
      `${waiting} ${waiting === 1 ? 'gets' : 'get'} the rules when ${waiting === 1 ? 'it connects' : 'they connect'}`,
    );
  if (failed) parts.push(`${failed} could not apply them`);
  const text = parts.join('; ');
  return `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}.`;
}

function SyncRow({ entry }: { entry: PolicySync }) {
  const info = SYNC_LABELS[entry.status] ?? SYNC_LABELS.pending;
  return (
    <Paper component="li" withBorder radius="md" p="sm" data-testid="policy-sync-device">
      <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
        <Text fw={600} style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
          {entry.hostname}
        </Text>
        <SyncBadge status={entry.status} />
      </Group>
      <Text size="sm" c="dimmed">
        Account <b>{entry.linux_username}</b> ·{' '}
        {entry.status === 'synced' && entry.updated_at ? (
          <RelativeTime iso={entry.updated_at} prefix="Got them " />
        ) : (
          info.hint
        )}
      </Text>
    </Paper>
  );
}

/** Each of the child's devices, and whether it has the latest rules. */
export function PolicySyncCard({ policy, childName }: { policy: AppPolicy; childName: string }) {
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="policy-sync-title">
      <Stack gap="sm">
        <Stack gap={4}>
          <Title order={2} fz="lg" id="policy-sync-title">
            Rules on {childName}’s devices
          </Title>
          <Text size="sm" c="dimmed" data-testid="policy-saved">
            {policy.updated_at ? (
              <>
                Rules saved <RelativeTime iso={policy.updated_at} />. Each device gets them as soon as it is
                online.
              </>
            ) : (
              'No app rules yet. Choose Allow, Block or Limit for an app below, and Hearth sends the rules to each device.'
            )}
          </Text>
        </Stack>
        {policy.sync.length ? (
          <SimpleGrid
            cols={{ base: 1, sm: 2, lg: 3 }}
            spacing="sm"
            component="ul"
            aria-label="Devices"
            style={{ listStyle: 'none', margin: 0, padding: 0 }}
          >
            {policy.sync.map((entry) => (
              <SyncRow key={`${entry.system_id}/${entry.linux_username}`} entry={entry} />
            ))}
          </SimpleGrid>
        ) : (
          <Text size="sm" c="dimmed">
            No devices are linked to {childName} yet.
          </Text>
        )}
      </Stack>
    </Card>
  );
}
