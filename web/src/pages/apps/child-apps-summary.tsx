import { Button, Card, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useMemo } from 'react';
import { Link } from 'react-router-dom';
import { type AppPolicy, useAppPolicyQuery, useChildInventory } from '../../api/inventory';
import type { ManagedUserView } from '../../api/types';
import { AppIcon, byAppName, IconApps } from '../../components/app-bits';
import { IconChevronRight } from '../../components/icons';
import { ErrorAlert } from '../../components/page';
import { plural } from '../../labels';

const PREVIEW_ICONS = 8;

function rulesText(policy: AppPolicy | undefined): string | null {
  if (!policy?.rules.length) return null;
  const count = (action: string) => policy.rules.filter((r) => r.action === action).length;
  const parts = [
    count('block') ? `${count('block')} blocked` : '',
    count('limit') ? `${count('limit')} limited` : '',
    count('allow') ? `${count('allow')} allowed` : '',
  ].filter(Boolean);
  return parts.join(' · ');
}

function syncText(policy: AppPolicy | undefined): { text: string; color: string } | null {
  if (!policy?.rules.length && !policy?.updated_at) return null;
  const total = policy.sync.length;
  if (!total) return null;
  const failed = policy.sync.filter((s) => s.status === 'failed').length;
  const waiting = policy.sync.filter((s) => s.status === 'pending').length;
  if (failed) return { text: `${plural(failed, 'device')} could not apply the rules`, color: 'red' };
  if (waiting)
    return {
      text: `${waiting} of ${plural(total, 'device')} waiting for the latest rules`,
      color: 'yellow',
    };
  return {
    text: total === 1 ? 'The device has the latest rules' : `All ${total} devices have the latest rules`,
    color: 'teal',
  };
}

/** The child page's door to their apps: how many, a few icons, the rules and whether devices have them. */
export function ChildAppsSummary({ child }: { child: ManagedUserView }) {
  const inventory = useChildInventory(child.id);
  const policy = useAppPolicyQuery(child.id);
  const { reload: reloadInventory } = inventory;

  const items = useMemo(() => [...(inventory.data?.items ?? [])].sort(byAppName), [inventory.data]);
  const withIcons = items.filter((a) => a.icon_url);
  const preview = [...withIcons, ...items.filter((a) => !a.icon_url)].slice(0, PREVIEW_ICONS);
  const rules = rulesText(policy.data);
  const sync = syncText(policy.data);
  const to = `/children/${encodeURIComponent(child.id)}/apps`;

  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="apps-summary-title">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" gap="sm">
          <Stack gap={4} style={{ flex: '1 1 14rem' }}>
            <Group gap="xs">
              <IconApps size={20} />
              <Title order={2} fz="lg" id="apps-summary-title">
                Apps
              </Title>
            </Group>
            <Text size="sm" c="dimmed" data-testid="apps-summary">
              {!inventory.data
                ? 'Looking for the apps on the devices…'
                : items.length
                  ? `${plural(items.length, 'app')} on ${child.name}’s devices${rules ? ` · ${rules}` : ''}`
                  : 'No apps reported yet — apps appear when the Hearth agent on a device reports them.'}
            </Text>
          </Stack>
          {items.length || policy.data?.rules.length ? (
            <Button component={Link} to={to} variant="default" rightSection={<IconChevronRight size={16} />}>
              Manage apps
            </Button>
          ) : null}
        </Group>
        {inventory.error && !inventory.data ? (
          <ErrorAlert error={inventory.error} onRetry={reloadInventory} title="Could not load the apps" />
        ) : null}
        {!inventory.data && !inventory.error ? <Skeleton h={32} w="50%" aria-busy="true" /> : null}
        {preview.length ? (
          <Group gap="xs" aria-hidden="true">
            {preview.map((app) => (
              <AppIcon key={`${app.match_type}:${app.identifier}`} url={app.icon_url} size={28} />
            ))}
            {items.length > preview.length ? (
              <Text size="sm" c="dimmed">
                +{items.length - preview.length}
              </Text>
            ) : null}
          </Group>
        ) : null}
        {sync ? (
          <Text size="sm" fw={500} c={sync.color} data-testid="apps-sync-summary">
            {sync.text}
          </Text>
        ) : null}
      </Stack>
    </Card>
  );
}
