// How a console's sync shows wherever a console appears: consoles run no agent, so instead of an
// "online" dot they say when Hearth last synced them, stale after 30 minutes, and what they could not hold.
import { Badge, Group, List, Text, Tooltip } from '@mantine/core';
import { isStale, useConsoleSyncBySystem } from '../api/consoles';
import { exactTime } from '../labels';
import { RelativeTime } from './device-bits';
import { IconAlert } from './icons';

export function StaleBadge() {
  return (
    <Tooltip label="Hearth has not heard from the vendor for more than 30 minutes">
      <Badge variant="light" color="yellow" radius="sm" data-testid="console-stale" tabIndex={0}>
        Stale
      </Badge>
    </Tooltip>
  );
}

/** "Synced 3 min ago" (with a Stale badge after 30 minutes), or "Not synced yet". */
export function ConsoleSynced({
  lastSyncAt,
  stale,
  size = 'sm',
}: {
  lastSyncAt: string | null;
  /** The server's word; else worked out from the time. */
  stale?: boolean;
  size?: 'xs' | 'sm';
}) {
  const old = stale ?? isStale(lastSyncAt);
  return (
    <Group gap={6} wrap="wrap" data-testid="console-synced">
      <Text size={size} c="dimmed" span>
        {lastSyncAt ? <RelativeTime iso={lastSyncAt} prefix="Synced " /> : 'Not synced yet'}
      </Text>
      {old && lastSyncAt ? <StaleBadge /> : null}
    </Group>
  );
}

/** The badge a console shows where a computer shows Online/Offline. */
export function ConsoleSyncBadge({ lastSyncAt, stale }: { lastSyncAt: string | null; stale?: boolean }) {
  const old = stale ?? isStale(lastSyncAt);
  return (
    <Badge
      variant="dot"
      color={!lastSyncAt ? 'gray' : old ? 'yellow' : 'teal'}
      radius="sm"
      data-testid="console-sync-badge"
      title={lastSyncAt ? exactTime(lastSyncAt) : undefined}
    >
      {lastSyncAt ? <RelativeTime iso={lastSyncAt} prefix="Synced " /> : 'Not synced yet'}
      {old && lastSyncAt ? ' · stale' : ''}
    </Badge>
  );
}

/** What the console could not hold of the child's week, in the server's words. */
export function ConsoleNotes({ notes, size = 'sm' }: { notes: string[]; size?: 'xs' | 'sm' }) {
  if (!notes.length) return null;
  return (
    <List
      size={size}
      spacing={2}
      c="yellow"
      icon={<IconAlert size={size === 'xs' ? 14 : 16} />}
      data-testid="console-notes"
      aria-label="What the console could not hold"
    >
      {notes.map((note) => (
        <List.Item key={note}>{note}</List.Item>
      ))}
    </List>
  );
}

/** A console device's sync badge, from its vendor's sync state (asked once for every console on screen). */
export function DeviceConsoleSync({ systemId, platform }: { systemId: string; platform: string }) {
  const sync = useConsoleSyncBySystem([platform]);
  const item = sync.items.get(systemId);
  if (!sync.loaded) return null;
  return <ConsoleSyncBadge lastSyncAt={item?.last_sync_at ?? null} stale={item?.stale} />;
}
