import { Badge, Text, ThemeIcon } from '@mantine/core';
import type { DeviceView } from '../api/types';
import { DEVICE_STATUS_COLORS, DEVICE_STATUS_LABELS, exactTime, platformLabel, timeAgo } from '../labels';
import { IconGamepad, IconLaptop, IconPhone } from './icons';

const PLATFORM_COLORS: Record<string, string> = {
  linux: 'orange',
  windows: 'blue',
  android: 'lime',
  xbox: 'green',
  nintendo: 'red',
};

export function PlatformIcon({ platform, size = 'lg' }: { platform: string; size?: 'md' | 'lg' | 'xl' }) {
  const Icon =
    platform === 'android'
      ? IconPhone
      : platform === 'xbox' || platform === 'nintendo'
        ? IconGamepad
        : IconLaptop;
  return (
    <ThemeIcon variant="light" size={size} radius="md" color={PLATFORM_COLORS[platform] ?? 'gray'}>
      <Icon size={size === 'xl' ? 24 : 20} />
    </ThemeIcon>
  );
}

export function PlatformBadge({ platform }: { platform: string }) {
  return (
    <Badge variant="light" color="gray" radius="sm">
      {platformLabel(platform)}
    </Badge>
  );
}

export function DeviceStatusBadge({ status }: { status: string }) {
  return (
    <Badge
      variant="light"
      color={DEVICE_STATUS_COLORS[status] ?? 'gray'}
      radius="sm"
      data-testid="device-status"
    >
      {DEVICE_STATUS_LABELS[status] ?? status}
    </Badge>
  );
}

/** A dot with the word beside it, so the state never rests on colour alone. */
export function OnlineBadge({ online }: { online: boolean }) {
  return (
    <Badge variant="dot" color={online ? 'teal' : 'gray'} radius="sm" data-testid="device-online">
      {online ? 'Online' : 'Offline'}
    </Badge>
  );
}

/** "5 min ago", with the exact local time on hover and for assistive technology. */
export function RelativeTime({ iso, prefix = '' }: { iso: string; prefix?: string }) {
  const exact = exactTime(iso);
  return (
    <time dateTime={iso} title={exact}>
      {prefix}
      {timeAgo(iso)}
    </time>
  );
}

/** Nothing while the device is connected; else when Hearth last heard from it. */
export function LastSeen({ device }: { device: Pick<DeviceView, 'online' | 'last_seen_at'> }) {
  if (device.online) return null;
  return (
    <Text size="sm" c="dimmed" span data-testid="last-seen">
      {device.last_seen_at ? (
        <RelativeTime iso={device.last_seen_at} prefix="Last seen " />
      ) : (
        'Never connected'
      )}
    </Text>
  );
}

/** The accounts a device reported, with their display names; `none` before it reported any. */
export function accountsText(device: Pick<DeviceView, 'linux_users'>, none: string): string {
  if (!device.linux_users.length) return none;
  return device.linux_users
    .map((u) =>
      u.display_name && u.display_name !== u.username ? `${u.username} (${u.display_name})` : u.username,
    )
    .join(', ');
}
