import { Button, Card, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import { type DomainPolicy, useDomainPolicy, useDomainSync } from '../../api/blocklists';
import type { SyncStatusView } from '../../api/time';
import type { ManagedUserView } from '../../api/types';
import { IconBlock, IconChevronRight } from '../../components/icons';
import { ErrorAlert } from '../../components/page';
import { plural } from '../../labels';
import { domainCount } from '../blocklists/blocklist-words';

function policyText(policy: DomainPolicy, childName: string): string {
  const own = policy.block_domains.length + policy.allow_domains.length;
  if (!policy.source_ids.length && !own) return `No websites are blocked for ${childName} yet.`;
  const parts = [
    plural(policy.source_ids.length, 'list'),
    policy.block_domains.length ? `${policy.block_domains.length} always blocked` : '',
    policy.allow_domains.length ? `${policy.allow_domains.length} always allowed` : '',
  ].filter(Boolean);
  return `${domainCount(policy.domain_count)} blocked · ${parts.join(' · ')}`;
}

function syncText(sync: SyncStatusView | undefined): { text: string; color: string } | null {
  const items = sync?.items.filter((i) => i.status !== 'unsupported') ?? [];
  if (!items.length) return null;
  const failed = items.filter((i) => i.status === 'failed').length;
  const waiting = items.filter((i) => i.status === 'pending').length;
  if (failed) return { text: `${plural(failed, 'device')} could not apply the websites`, color: 'red' };
  if (waiting)
    return {
      text: `${waiting} of ${plural(items.length, 'device')} waiting for the latest websites`,
      color: 'yellow',
    };
  return {
    text:
      items.length === 1
        ? 'The device has the latest websites'
        : `All ${items.length} devices have the latest websites`,
    color: 'teal',
  };
}

/** The child page's door to their websites: what is blocked and whether the devices have it. */
export function WebsitesSummary({ child }: { child: ManagedUserView }) {
  const policy = useDomainPolicy(child.id);
  const sync = useDomainSync(child.id);
  // Nothing set yet (version 0): there is nothing for a device to have.
  const synced = policy.data?.version ? syncText(sync.data) : null;

  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="websites-summary-title">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" gap="sm">
          <Stack gap={4} style={{ flex: '1 1 14rem' }}>
            <Group gap="xs">
              <IconBlock size={20} />
              <Title order={2} fz="lg" id="websites-summary-title">
                Websites
              </Title>
            </Group>
            {policy.data ? (
              <Text size="sm" c="dimmed" data-testid="websites-summary">
                {policyText(policy.data, child.name)}
              </Text>
            ) : policy.error ? null : (
              <Skeleton h={20} w="50%" aria-busy="true" />
            )}
          </Stack>
          <Button
            component={Link}
            to={`/children/${encodeURIComponent(child.id)}/websites`}
            variant="default"
            rightSection={<IconChevronRight size={16} />}
          >
            Manage websites
          </Button>
        </Group>
        {policy.error && !policy.data ? (
          <ErrorAlert error={policy.error} onRetry={policy.reload} title="Could not load the websites" />
        ) : null}
        {synced ? (
          <Text size="sm" fw={500} c={synced.color} data-testid="websites-sync-summary">
            {synced.text}
          </Text>
        ) : null}
      </Stack>
    </Card>
  );
}
