import { Badge, Card, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useUsage } from '../../api/resources';
import type { ManagedUserView, UsageView } from '../../api/types';
import { IconClock } from '../../components/icons';
import { ErrorAlert } from '../../components/page';
import { formatMinutes } from '../../labels';

export function usageSummary(usage: UsageView): string {
  const used = `Used today: ${formatMinutes(usage.used_seconds)}`;
  if (usage.state === 'paused') return `${used} · Paused`;
  if (usage.limit_seconds === null) return `${used} · No limit set`;
  const left = usage.remaining_seconds ?? Math.max(0, usage.limit_seconds - usage.used_seconds);
  return `${used} · ${formatMinutes(left)} left of ${formatMinutes(usage.limit_seconds)}`;
}

export function TodaySection({ child }: { child: ManagedUserView }) {
  const usage = useUsage(child.id);
  const data = usage.data;
  const names = new Map(
    child.mappings.map((m) => [`${m.system_id}/${m.linux_username}`, m.display_name ?? m.hostname]),
  );
  const busyDevices = data?.devices.filter((d) => d.used_seconds > 0) ?? [];
  const online = data?.devices.some((d) => d.online) ?? false;

  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="today-title">
      <Stack gap="sm">
        <Group justify="space-between" gap="sm">
          <Group gap="xs">
            <IconClock size={20} />
            <Title order={2} fz="lg" id="today-title">
              Today
            </Title>
          </Group>
          {data ? (
            <Badge variant="dot" color={online ? 'teal' : 'gray'} size="lg">
              {online ? 'Online now' : 'Offline'}
            </Badge>
          ) : null}
        </Group>
        {usage.error && !data ? <ErrorAlert error={usage.error} onRetry={usage.reload} /> : null}
        {!data && !usage.error ? <Skeleton h={24} w="60%" /> : null}
        {data ? (
          <>
            <Text size="lg" fw={500} data-testid="usage-summary">
              {usageSummary(data)}
            </Text>
            {busyDevices.length ? (
              <Stack gap={2}>
                {busyDevices.map((d) => (
                  <Text key={`${d.system_id}/${d.linux_username}`} size="sm" c="dimmed">
                    {names.get(`${d.system_id}/${d.linux_username}`) ?? 'A device'} ({d.linux_username}):{' '}
                    {formatMinutes(d.used_seconds)}
                  </Text>
                ))}
              </Stack>
            ) : (
              <Text size="sm" c="dimmed">
                Screen time from {child.name}’s devices shows up here as they use them.
              </Text>
            )}
          </>
        ) : null}
      </Stack>
    </Card>
  );
}
