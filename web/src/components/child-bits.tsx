import { Anchor, Avatar, Badge, Group, Text } from '@mantine/core';
import { Link } from 'react-router-dom';
import type { AgeTier, ManagedUserView } from '../api/types';
import { AGE_TIER_LABELS, isGone, plural } from '../labels';
import { NotFoundPage } from '../pages/not-found-page';
import { IconArrowLeft } from './icons';

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

/** The link at the top of a child's sub-page (Routine, Usage, Apps, Websites) back to the child. */
export function BackToChild({ id, name }: { id: string; name?: string }) {
  return (
    <Anchor
      component={Link}
      to={`/children/${encodeURIComponent(id)}`}
      size="sm"
      mb="sm"
      style={{ display: 'inline-flex', gap: 6 }}
    >
      <IconArrowLeft size={16} /> {name ? `Back to ${name}` : 'Back to the child'}
    </Anchor>
  );
}

/** What a child's page or sub-page shows for a child that is missing (or another household's). */
export function ChildNotFound() {
  return (
    <NotFoundPage
      title="We couldn’t find that child"
      description="They may have been removed, or the link is not quite right."
      back={{ to: '/children', label: 'Back to children' }}
    />
  );
}
