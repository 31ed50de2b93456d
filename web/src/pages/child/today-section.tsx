import {
  Anchor,
  Badge,
  Button,
  Card,
  Divider,
  Group,
  Progress,
  Skeleton,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { messageOf } from '../../api/client';
import { isConsolePlatform, useConsoleSyncBySystem } from '../../api/consoles';
import { useModifyTime } from '../../api/mutations';
import { type TimeUsageView, useTimeUsage } from '../../api/time';
import type { ManagedUserView } from '../../api/types';
import { IconClock } from '../../components/icons';
import { ErrorAlert } from '../../components/page';
import {
  ChildPauseControls,
  clockTime,
  pausedUntilText,
  StateBadge,
  SyncList,
  usageLine,
} from '../../components/time-bits';
import { formatMinutes } from '../../labels';

const CHANGES = [
  { minutes: 15, label: '+15 min' },
  { minutes: 30, label: '+30 min' },
  { minutes: 60, label: '+60 min' },
  { minutes: -15, label: '−15 min' },
] as const;

function nextChangeText(usage: TimeUsageView): string | null {
  if (!usage.next_change_at) return null;
  const at = clockTime(usage.next_change_at, usage.timezone);
  switch (usage.state) {
    case 'ok':
      return `Allowed until ${at}`;
    case 'sleep':
      return `Allowed again at ${at}`;
    case 'locked':
      return `Allowed again at ${at}`;
    default:
      return null;
  }
}

/** +15 / +30 / +60 minutes today and "take 15 minutes away", with the new figure at once. */
function TimeButtons({ child }: { child: ManagedUserView }) {
  const change = useModifyTime(child.id);
  const [said, setSaid] = useState<string | null>(null);

  const press = async (minutes: number) => {
    setSaid(null);
    try {
      const answer = await change.mutateAsync({ minutes });
      const what = minutes > 0 ? `Added ${minutes} minutes` : `Took ${-minutes} minutes away`;
      setSaid(
        answer.remaining_seconds === null
          ? `${what}.`
          : `${what}: ${formatMinutes(answer.remaining_seconds)} left today.`,
      );
    } catch {
      // Shown below from the mutation's error.
    }
  };

  return (
    <Stack gap="xs">
      <Text size="sm" fw={500} id="time-buttons-label">
        Change today’s time
      </Text>
      <Group gap="xs" role="group" aria-labelledby="time-buttons-label">
        {CHANGES.map(({ minutes, label }) => (
          <Button
            key={minutes}
            variant={minutes > 0 ? 'light' : 'default'}
            onClick={() => press(minutes)}
            loading={change.isPending && change.variables?.minutes === minutes}
            disabled={change.isPending && change.variables?.minutes !== minutes}
            aria-label={minutes > 0 ? `${label} today` : `${label}: take 15 minutes away`}
          >
            {label}
          </Button>
        ))}
      </Group>
      <div aria-live="polite">
        {said && !change.error ? (
          <Text size="sm" c="teal" fw={500} data-testid="time-result">
            {said}
          </Text>
        ) : null}
      </div>
      {change.error ? <ErrorAlert error={messageOf(change.error)} title="Time not changed" /> : null}
    </Stack>
  );
}

export function TodaySection({ child }: { child: ManagedUserView }) {
  const usage = useTimeUsage(child.id);
  const data = usage.data;
  const names = new Map(child.mappings.map((m) => [m.system_id, m.display_name ?? m.hostname ?? 'A device']));
  // A console's account is its player: shown by the player's name, not the vendor's id.
  const consoles = useConsoleSyncBySystem(child.mappings.map((m) => m.platform));
  const accounts = new Map([...consoles.items].map(([systemId, c]) => [systemId, c.player_name]));
  const busyDevices = data?.devices.filter((d) => d.used_seconds > 0) ?? [];
  // Online is an agent's word: consoles run none (they say when they were synced instead).
  const onlyConsoles =
    child.mappings.length > 0 && child.mappings.every((m) => isConsolePlatform(m.platform));
  const online = data?.devices.some((d) => d.online && !isConsolePlatform(d.platform)) ?? false;
  const limit =
    data && data.limit_seconds !== null ? Math.max(0, data.limit_seconds + data.adjustment_seconds) : null;
  const next = data ? nextChangeText(data) : null;

  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="today-title">
      <Stack gap="md">
        <Group justify="space-between" gap="sm">
          <Group gap="xs">
            <IconClock size={20} />
            <Title order={2} fz="lg" id="today-title">
              Today
            </Title>
          </Group>
          {data ? (
            <Group gap="xs">
              <StateBadge state={data.state} size="lg" />
              {onlyConsoles ? null : (
                <Badge variant="dot" color={online ? 'teal' : 'gray'} size="lg">
                  {online ? 'Online now' : 'Offline'}
                </Badge>
              )}
            </Group>
          ) : null}
        </Group>
        {usage.error && !data ? <ErrorAlert error={usage.error} onRetry={usage.reload} /> : null}
        {!data && !usage.error ? <Skeleton h={24} w="60%" /> : null}
        {data ? (
          <>
            <Stack gap={6}>
              <Text size="lg" fw={500} data-testid="usage-summary">
                {usageLine(data)}
              </Text>
              {limit !== null ? (
                <Progress
                  value={limit ? Math.min(100, (data.used_seconds / limit) * 100) : 100}
                  color={data.remaining_seconds ? 'hearth' : 'red'}
                  aria-label={`${formatMinutes(data.used_seconds)} used of ${formatMinutes(limit)}`}
                />
              ) : null}
              <Text size="sm" c="dimmed" data-testid="time-next">
                {data.state === 'paused'
                  ? `Paused on all devices ${pausedUntilText(data)}.`
                  : (next ?? 'No change coming today.')}
                {data.adjustment_seconds
                  ? ` Today’s change: ${data.adjustment_seconds > 0 ? '+' : '−'}${formatMinutes(Math.abs(data.adjustment_seconds))}.`
                  : ''}
              </Text>
            </Stack>
            <ChildPauseControls childId={child.id} childName={child.name} usage={data} />
            <TimeButtons child={child} />
            {busyDevices.length ? (
              <Stack gap={2}>
                {busyDevices.map((d) => (
                  <Text key={`${d.system_id}/${d.linux_username}`} size="sm" c="dimmed">
                    {names.get(d.system_id) ?? d.hostname ?? 'A device'} (
                    {accounts.get(d.system_id) ?? d.linux_username}): {formatMinutes(d.used_seconds)}
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
        <Divider />
        <Stack gap="xs">
          <Group justify="space-between" gap="xs">
            <Text size="sm" fw={500}>
              Routine on each device
            </Text>
            <Group gap="md">
              <Anchor component={Link} to={`/children/${encodeURIComponent(child.id)}/routine`} size="sm">
                Edit routine
              </Anchor>
              <Anchor component={Link} to={`/children/${encodeURIComponent(child.id)}/usage`} size="sm">
                See usage
              </Anchor>
            </Group>
          </Group>
          <SyncList childId={child.id} names={names} accounts={accounts} />
        </Stack>
      </Stack>
    </Card>
  );
}
