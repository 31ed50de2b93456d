import { Badge, Box, Button, CloseButton, Group, Text, TextInput } from '@mantine/core';
import { type ReactNode, useState } from 'react';
import type { AppAction, AppRule, SyncStatus } from '../api/inventory';
import { formatMinutes, plural } from '../labels';
import { Icon, IconAlert, IconCheck, IconClock, type IconProps } from './icons';

/** Four tiles: an app, or apps in general. */
export const IconApps = (p: IconProps) => (
  <Icon {...p}>
    <rect x="4" y="4" width="6.5" height="6.5" rx="1.6" />
    <rect x="13.5" y="4" width="6.5" height="6.5" rx="1.6" />
    <rect x="4" y="13.5" width="6.5" height="6.5" rx="1.6" />
    <rect x="13.5" y="13.5" width="6.5" height="6.5" rx="1.6" />
  </Icon>
);

export const IconSearch = (p: IconProps) => (
  <Icon {...p}>
    <circle cx="10.5" cy="10.5" r="6" />
    <path d="m15 15 5 5" />
  </Icon>
);

/**
 * An app's icon as the agent sent it; a neutral tile when there is none or it does not load. The
 * name is always written beside it, so the picture itself is decorative.
 */
export function AppIcon({ url, size = 36 }: { url: string | null; size?: number }) {
  const [failed, setFailed] = useState<string | null>(null);
  const frame = { width: size, height: size, flex: 'none' } as const;
  if (!url || failed === url) {
    return (
      <Box
        data-testid="app-icon-fallback"
        style={{
          ...frame,
          display: 'grid',
          placeItems: 'center',
          borderRadius: 'var(--mantine-radius-md)',
          backgroundColor: 'light-dark(var(--mantine-color-gray-1), var(--mantine-color-dark-5))',
          color: 'var(--mantine-color-dimmed)',
        }}
      >
        <IconApps size={Math.round(size * 0.56)} />
      </Box>
    );
  }
  return (
    <img
      src={url}
      alt=""
      width={size}
      height={size}
      loading="lazy"
      decoding="async"
      data-testid="app-icon"
      onError={() => setFailed(url)}
      style={{ ...frame, objectFit: 'contain', borderRadius: 'var(--mantine-radius-sm)' }}
    />
  );
}

/** A search box for an app list; Escape or the cross empties it. */
export function AppSearch({
  value,
  onChange,
  label,
  placeholder = 'Search by name, version or account',
}: {
  value: string;
  onChange: (value: string) => void;
  label: string;
  placeholder?: string;
}) {
  return (
    <TextInput
      type="search"
      aria-label={label}
      placeholder={placeholder}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && value) {
          e.preventDefault();
          onChange('');
        }
      }}
      leftSection={<IconSearch size={16} />}
      rightSection={
        value ? <CloseButton size="sm" aria-label="Clear search" onClick={() => onChange('')} /> : null
      }
      autoCapitalize="none"
      spellCheck={false}
      style={{ flex: '1 1 14rem' }}
    />
  );
}

/** True when every word of `query` appears in one of `fields`, ignoring case and accents. */
export function matchesQuery(query: string, fields: (string | null | undefined)[]): boolean {
  const fold = (s: string) =>
    s
      .normalize('NFD')
      .replace(/\p{Diacritic}/gu, '')
      .toLowerCase();
  const words = fold(query).split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const haystack = fold(fields.filter(Boolean).join(' \u0000 '));
  return words.every((w) => haystack.includes(w));
}

/** Apps by name as people read them ("gimp" next to "GIMP", "Zoom" after "zathura"). */
export function byAppName(a: { application_name: string }, b: { application_name: string }): number {
  return a.application_name.localeCompare(b.application_name, undefined, {
    sensitivity: 'base',
    numeric: true,
  });
}

/** "45 min a day", "1 h 30 min a day". */
export function dailyText(minutes: number): string {
  return `${formatMinutes(minutes * 60)} a day`;
}

export const ACTION_LABELS: Record<AppAction, string> = { allow: 'Allow', block: 'Block', limit: 'Limit' };
export const ACTION_COLORS: Record<AppAction, string> = { allow: 'teal', block: 'red', limit: 'blue' };

/** The saved rule in a few words: "Allowed", "Blocked", "45 min a day". */
export function ruleText(rule: Pick<AppRule, 'action' | 'daily_minutes'>): string {
  if (rule.action === 'allow') return 'Allowed';
  if (rule.action === 'block') return 'Blocked';
  return dailyText(rule.daily_minutes ?? 0);
}

export function RuleBadge({ rule }: { rule: Pick<AppRule, 'action' | 'daily_minutes'> | undefined }) {
  if (!rule) return null;
  return (
    <Badge
      variant="light"
      color={ACTION_COLORS[rule.action]}
      radius="sm"
      leftSection={rule.action === 'limit' ? <IconClock size={12} /> : null}
      data-testid="rule-badge"
    >
      {ruleText(rule)}
    </Badge>
  );
}

export const SYNC_LABELS: Record<SyncStatus, { label: string; color: string; hint: string }> = {
  synced: { label: 'Synced', color: 'teal', hint: 'Has the latest rules' },
  pending: { label: 'Waiting for device', color: 'yellow', hint: 'Gets the rules when it connects' },
  failed: { label: 'Failed', color: 'red', hint: 'The device could not apply the rules' },
  none: { label: 'No rules yet', color: 'gray', hint: 'Nothing to send yet' },
};

export function SyncBadge({ status }: { status: SyncStatus }) {
  const info = SYNC_LABELS[status] ?? SYNC_LABELS.pending;
  const icon =
    status === 'synced' ? (
      <IconCheck size={12} />
    ) : status === 'failed' ? (
      <IconAlert size={12} />
    ) : status === 'pending' ? (
      <IconClock size={12} />
    ) : null;
  return (
    <Badge variant="light" color={info.color} radius="sm" leftSection={icon} data-testid="sync-status">
      {info.label}
    </Badge>
  );
}

/** How many rows a long list shows before "Show all". */
export const LIST_STEP = 60;

/** The first rows of a long list, with a button for the rest. */
export function useShownRows<T>(rows: T[], resetKey: string): { shown: T[]; more: ReactNode } {
  const [expanded, setExpanded] = useState<string | null>(null);
  const all = expanded === resetKey;
  const shown = all ? rows : rows.slice(0, LIST_STEP);
  const more =
    rows.length > shown.length ? (
      <Group justify="center" mt="sm">
        <Button variant="default" onClick={() => setExpanded(resetKey)}>
          Show all {plural(rows.length, 'app')}
        </Button>
      </Group>
    ) : null;
  return { shown, more };
}

/** "2 of 14 apps" while a search or filter narrows a list; announced politely as it changes. */
export function ListCount({
  shown,
  total,
  filtered,
  testId,
}: {
  shown: number;
  total: number;
  filtered: boolean;
  testId: string;
}) {
  return (
    <Text size="sm" c="dimmed" aria-live="polite" data-testid={testId}>
      {filtered ? `${shown} of ${plural(total, 'app')}` : ''}
    </Text>
  );
}

export function NoMatches({ query }: { query: string }) {
  return (
    <Text size="sm" c="dimmed" ta="center" py="lg" data-testid="no-matches">
      {query.trim() ? `No apps match “${query.trim()}”.` : 'No apps to show.'}
    </Text>
  );
}
