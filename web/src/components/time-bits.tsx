// Time shown in words wherever a child appears: the state today, whether each device applied the
// latest schedule, and the pause controls shared by the child's page and the device's.
import { Badge, Button, Group, Menu, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { messageOf } from '../api/client';
import { isConsolePlatform } from '../api/consoles';
import { usePauseChild } from '../api/mutations';
import type { Resource } from '../api/query';
import {
  type SyncStatus,
  type SyncStatusView,
  type TimeState,
  type TimeUsageView,
  useSyncStatus,
} from '../api/time';
import { deviceName, exactTime, formatMinutes, timeAgo } from '../labels';
import { ConsoleNotes } from './console-bits';
import { IconPause, IconPlay } from './icons';
import { ErrorAlert } from './page';

export const STATE_LABELS: Record<TimeState, string> = {
  ok: 'Allowed now',
  sleep: 'Outside allowed hours',
  locked: 'Time is up for today',
  paused: 'Paused',
};

const STATE_COLORS: Record<TimeState, string> = {
  ok: 'teal',
  sleep: 'indigo',
  locked: 'red',
  paused: 'yellow',
};

export function StateBadge({ state, size = 'md' }: { state: TimeState; size?: 'md' | 'lg' }) {
  return (
    <Badge variant="light" color={STATE_COLORS[state]} radius="sm" size={size} data-testid="time-state">
      {STATE_LABELS[state]}
    </Badge>
  );
}

/** "until 18:30", "until you resume", or nothing. */
export function pausedUntilText(
  usage: Pick<TimeUsageView, 'state' | 'paused_until' | 'next_change_at' | 'timezone'>,
): string {
  if (usage.state !== 'paused') return '';
  const until = usage.paused_until ?? usage.next_change_at;
  if (!until || until === 'indefinite') return 'until you resume';
  return `until ${clockTime(until, usage.timezone)}`;
}

/** "18:30" today, "Tue 07:00" on another day, in the household's zone (the browser's when unknown). */
export function clockTime(iso: string, timezone?: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const zone = (options: Intl.DateTimeFormatOptions) => {
    try {
      return new Intl.DateTimeFormat([], { ...options, timeZone: timezone }).format(at);
    } catch {
      return new Intl.DateTimeFormat([], options).format(at);
    }
  };
  const time = zone({ hour: '2-digit', minute: '2-digit' });
  const day = (d: Date) => {
    try {
      return new Intl.DateTimeFormat('en-CA', { timeZone: timezone }).format(d);
    } catch {
      return d.toDateString();
    }
  };
  if (day(at) === day(new Date())) return time;
  return `${zone({ weekday: 'short' })} ${time}`;
}

/** The day's figures in one line: "Used 45 min of 2 h · 1 h 15 min left". */
export function usageLine(usage: TimeUsageView): string {
  const used = formatMinutes(usage.used_seconds);
  if (usage.limit_seconds === null) return `Used ${used} today · no daily limit`;
  const limit = usage.limit_seconds + usage.adjustment_seconds;
  return `Used ${used} of ${formatMinutes(Math.max(0, limit))} · ${formatMinutes(usage.remaining_seconds ?? 0)} left`;
}

export const SYNC_LABELS: Record<SyncStatus, string> = {
  synced: 'Synced',
  pending: 'Waiting for the device',
  failed: 'Not applied',
  unsupported: 'Not supported',
};

const SYNC_COLORS: Record<SyncStatus, string> = {
  synced: 'teal',
  pending: 'yellow',
  failed: 'red',
  unsupported: 'gray',
};

export function SyncBadge({ status }: { status: SyncStatus }) {
  return (
    <Badge variant="light" color={SYNC_COLORS[status]} radius="sm" data-testid="sync-status">
      {SYNC_LABELS[status]}
    </Badge>
  );
}

type SyncItem = SyncStatusView['items'][number];

/** A console has no agent to acknowledge: the worker writes the routine to the vendor at each sync. */
function consoleSyncDetail(item: SyncItem): string {
  if (item.status === 'failed') return item.error ?? 'The console did not take the routine.';
  if (item.status === 'pending') return 'Written to the console at the next sync (every 5 minutes).';
  if (item.status === 'unsupported') return 'This console cannot take a routine.';
  if (!item.last_sync_at) return 'Written to the console.';
  return `Synced ${timeAgo(item.last_sync_at)}${item.stale ? ' · stale' : ''}`;
}

function syncDetail(item: SyncItem, unsupported: string): string {
  if (isConsolePlatform(item.platform)) return consoleSyncDetail(item);
  if (item.status === 'failed')
    return item.error ? `The device said: ${item.error}` : 'The device could not apply it.';
  if (item.status === 'unsupported') return unsupported;
  if (item.status === 'pending')
    return item.last_attempt_at
      ? `Sent ${exactTime(item.last_attempt_at)}`
      : 'Sent when the device connects.';
  return item.applied_version === null ? '' : `Applied version ${item.applied_version}`;
}

/**
 * One line per device account of a child: did it apply the latest rules of one kind (the time rules,
 * the websites)? `empty` says what happens when no device account is linked yet.
 */
export function SyncItems({
  sync,
  names,
  accounts,
  empty,
  unsupported,
}: {
  sync: Resource<SyncStatusView>;
  names?: Map<string, string>;
  /** What to show for the account, by device, where it is not the account's name (a console's player). */
  accounts?: Map<string, string>;
  empty: string;
  /** Why a device that cannot apply this kind of rule shows "Not supported". */
  unsupported: string;
}) {
  const data = sync.data;
  if (sync.error && !data)
    return <ErrorAlert error={sync.error} onRetry={sync.reload} title="Could not load the sync state" />;
  if (!data) return null;
  if (!data.items.length) {
    return (
      <Text size="sm" c="dimmed">
        {empty}
      </Text>
    );
  }
  return (
    <Stack gap={6} data-testid="sync-list">
      {data.items.map((item) => (
        <Group key={item.mapping_id} justify="space-between" gap="xs" wrap="wrap" data-testid="sync-item">
          <Stack gap={0} style={{ minWidth: 0, flex: '1 1 12rem' }}>
            <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
              {names?.get(item.system_id) ?? deviceName({ hostname: item.hostname })} (
              {accounts?.get(item.system_id) ?? item.linux_username})
            </Text>
            <Text size="xs" c="dimmed">
              {syncDetail(item, unsupported)}
            </Text>
            {item.notes?.length ? <ConsoleNotes notes={item.notes} size="xs" /> : null}
          </Stack>
          <SyncBadge status={item.status} />
        </Group>
      ))}
    </Stack>
  );
}

/** One line per device account of the child: did it apply the latest time rules? */
export function SyncList({
  childId,
  names,
  accounts,
}: {
  childId: string;
  names?: Map<string, string>;
  accounts?: Map<string, string>;
}) {
  return (
    <SyncItems
      sync={useSyncStatus(childId)}
      names={names}
      accounts={accounts}
      empty="The routine reaches a device once one of its accounts is linked to the child."
      unsupported="This device cannot apply time rules."
    />
  );
}

/** Minutes left of today in the household's zone (the browser's when unknown), 1–1440. */
export function minutesUntilMidnight(timezone: string | undefined, now = new Date()): number {
  let minutesNow = now.getHours() * 60 + now.getMinutes();
  try {
    const parts = new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(now);
    const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
    minutesNow = part('hour') * 60 + part('minute');
  } catch {
    // An unknown zone: the browser's clock is the best guess.
  }
  return Math.max(1, Math.min(1440, 1440 - minutesNow));
}

/** Pause now / for 30 minutes / until tomorrow, or Resume, for a child on all their devices. */
export function ChildPauseControls({
  childId,
  childName,
  usage,
  onDone,
}: {
  childId: string;
  childName: string;
  usage: TimeUsageView | undefined;
  onDone?: (usage: TimeUsageView) => void;
}) {
  const pause = usePauseChild(childId);
  const [said, setSaid] = useState<string | null>(null);
  const paused = usage?.state === 'paused';

  const run = async (request: Parameters<typeof pause.mutateAsync>[0], done: string) => {
    setSaid(null);
    try {
      const answer = await pause.mutateAsync(request);
      setSaid(done);
      onDone?.(answer);
    } catch {
      // Shown below from the mutation's error.
    }
  };

  const untilTomorrow = () => minutesUntilMidnight(usage?.timezone);

  return (
    <Stack gap="xs">
      <Group gap="xs" wrap="wrap">
        {paused ? (
          <Button
            onClick={() => run({ action: 'resume' }, `${childName} can use their devices again.`)}
            loading={pause.isPending}
            leftSection={<IconPlay size={16} />}
            aria-label={`Resume ${childName}`}
          >
            Resume
          </Button>
        ) : (
          <>
            <Button
              onClick={() =>
                run({ action: 'pause' }, `${childName} is paused on all devices until you resume.`)
              }
              loading={
                pause.isPending &&
                pause.variables?.action === 'pause' &&
                pause.variables.minutes === undefined
              }
              disabled={pause.isPending}
              leftSection={<IconPause size={16} />}
              aria-label={`Pause now for ${childName}`}
            >
              Pause now
            </Button>
            <Menu position="bottom-start" withinPortal>
              <Menu.Target>
                <Button
                  variant="default"
                  disabled={pause.isPending}
                  aria-label={`Pause for a while (${childName})`}
                >
                  Pause for a while
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item
                  onClick={() =>
                    run({ action: 'pause', minutes: 30 }, `${childName} is paused for 30 minutes.`)
                  }
                >
                  For 30 minutes
                </Menu.Item>
                <Menu.Item
                  onClick={() =>
                    run(
                      { action: 'pause', minutes: untilTomorrow() },
                      `${childName} is paused until tomorrow.`,
                    )
                  }
                >
                  Until tomorrow
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </>
        )}
      </Group>
      <div aria-live="polite">
        {said && !pause.error ? (
          <Text size="sm" c="teal" fw={500} data-testid="pause-result">
            {said}
          </Text>
        ) : null}
      </div>
      {pause.error ? <ErrorAlert error={messageOf(pause.error)} title="Not changed" /> : null}
    </Stack>
  );
}
