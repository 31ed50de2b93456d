import { Alert, Box, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { messageOf } from '../../api/client';
import { keys } from '../../api/keys';
import { useClearClockTamper } from '../../api/mutations';
import { useResource } from '../../api/query';
import type { AlertPage, CommandOutcome, DeviceView } from '../../api/types';
import { RelativeTime } from '../../components/device-bits';
import { IconCheck, IconClock } from '../../components/icons';
import { ErrorAlert } from '../../components/page';

/** "Sent to the device…" or "…when it reconnects." */
export function clearOutcomeText(outcome: CommandOutcome): string {
  return outcome.delivered
    ? 'Sent to the device: the clock lock is cleared.'
    : 'The device is offline; the clock lock clears when it reconnects.';
}

/**
 * A device that sees its clock changed locks itself (Hearth Space, reason clock_tamper) until a parent
 * clears it: the unread clock alerts say so, and the button sends `clear_clock_tamper`.
 */
export function ClockTamperCard({ device }: { device: DeviceView }) {
  const path = `/api/alerts?kind=clock_tamper&system_id=${encodeURIComponent(device.system_id)}&unacknowledged=true&limit=50`;
  const alerts = useResource<AlertPage>(keys.clockAlerts(device.system_id), path);
  const clear = useClearClockTamper(device.system_id);
  const unread = alerts.data?.items ?? [];
  const latest = unread[0];

  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="clock-lock-title">
      <Stack gap="md">
        <Group justify="space-between" align="center" gap="md">
          <Stack gap={4} style={{ flex: '1 1 18rem' }}>
            <Title order={2} fz="lg" id="clock-lock-title">
              Clock lock
            </Title>
            <Text size="sm" c="dimmed">
              When someone changes this device’s clock, it locks itself until you clear the lock here.
            </Text>
          </Stack>
          <Button
            variant={latest ? 'filled' : 'default'}
            leftSection={<IconClock size={16} />}
            loading={clear.isPending}
            onClick={() => clear.mutate(unread.map((a) => a.id))}
          >
            Clear clock-tamper lock
          </Button>
        </Group>
        {latest ? (
          <Alert
            variant="light"
            color="yellow"
            icon={<IconClock />}
            title="The clock was changed"
            data-testid="clock-alert"
          >
            The device reported a clock change <RelativeTime iso={latest.created_at} />
            {unread.length > 1 ? ` (${unread.length} times)` : ''} and stays locked until you clear it.
          </Alert>
        ) : null}
        <div aria-live="polite" style={{ display: 'contents' }}>
          {clear.data ? (
            <Group
              gap={6}
              wrap="nowrap"
              c={clear.data.delivered ? 'teal.8' : 'yellow.9'}
              data-testid="clock-clear-result"
            >
              {clear.data.delivered ? <IconCheck size={16} /> : <IconClock size={16} />}
              <Text size="sm" fw={500}>
                {clearOutcomeText(clear.data)}
              </Text>
            </Group>
          ) : null}
        </div>
        {clear.error ? (
          <Box>
            <ErrorAlert error={messageOf(clear.error)} title="The lock was not cleared" />
          </Box>
        ) : null}
      </Stack>
    </Card>
  );
}
