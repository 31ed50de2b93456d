import { Avatar, Badge, Group, Text } from '@mantine/core';
import type { AgeTier, ManagedUserView } from '../api/types';
import { AGE_TIER_LABELS, isGone, plural } from '../labels';

const TIER_COLORS: Record<AgeTier, string> = { under8: 'pink', eight12: 'blue', teen: 'violet' };
const AVATAR_COLORS = ['hearth', 'teal', 'grape', 'blue', 'pink', 'lime', 'cyan', 'yellow'];

export function AgeTierBadge({ tier }: { tier: AgeTier | null }) {
  if (!tier) {
    return (
      <Badge variant="light" color="gray" radius="sm">
        Age not set
      </Badge>
    );
  }
  return (
    <Badge variant="light" color={TIER_COLORS[tier]} radius="sm">
      {AGE_TIER_LABELS[tier]}
    </Badge>
  );
}

/** The child's initial on a colour that stays the same for the same name. */
export function ChildAvatar({ name, size = 'md' }: { name: string; size?: 'sm' | 'md' | 'lg' | 'xl' }) {
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  const initial = [...name.trim()][0]?.toUpperCase() ?? '?';
  return (
    <Avatar size={size} radius="xl" color={AVATAR_COLORS[hash % AVATAR_COLORS.length]} variant="light">
      {initial}
    </Avatar>
  );
}

/** The devices a child uses: each once, however many accounts; unenrolled and rejected ones not at all. */
export function activeDeviceCount(mappings: ManagedUserView['mappings']): number {
  return new Set(mappings.filter((m) => !isGone(m.device_status)).map((m) => m.system_id)).size;
}

/** A child's age tier and how many devices they use, under their name. */
export function ChildTierLine({ child }: { child: Pick<ManagedUserView, 'overlay_age_tier' | 'mappings'> }) {
  return (
    <Group gap="xs">
      <AgeTierBadge tier={child.overlay_age_tier} />
      <Text size="sm" c="dimmed">
        {plural(activeDeviceCount(child.mappings), 'device')}
      </Text>
    </Group>
  );
}
