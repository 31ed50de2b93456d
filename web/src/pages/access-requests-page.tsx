import {
  Badge,
  Button,
  Card,
  EmptyState,
  Group,
  Paper,
  SegmentedControl,
  Skeleton,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { useAlertFeed } from '../api/alerts';
import { type ApprovalFilter, type ApprovalView, findApproval, useApprovalFeed } from '../api/approvals';
import type { Resource } from '../api/query';
import { useDevices, useParents } from '../api/resources';
import type { DeviceView, ItemList, ParentView } from '../api/types';
import { useSearchFilters } from '../api/use-search-filters';
import { ApprovalItem } from '../components/approval-item';
import { IconCheck, IconInbox } from '../components/icons';
import { ErrorAlert, PageHeader } from '../components/page';
import { useSignedIn } from '../session';
import { AlertList, ListEmpty } from './alert-list';

export const REQUESTS_PAGE_SIZE = 20;
const FILTER_KEYS = ['unread', 'approvals'] as const;

const listStyle = { listStyle: 'none', margin: 0, padding: 0 } as const;

function SectionHeading({
  id,
  title,
  count,
  description,
  actions,
}: {
  id: string;
  title: string;
  count?: number;
  description: string;
  actions: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-end" gap="sm" wrap="wrap">
      <Stack gap={2} style={{ flex: '1 1 18rem', minWidth: 0 }}>
        <Group gap="xs">
          <Title order={2} fz="lg" id={id}>
            {title}
          </Title>
          {count ? (
            <Badge color="hearth" variant="filled" circle={count < 10} aria-label={`${count} waiting`}>
              {count}
            </Badge>
          ) : null}
        </Group>
        <Text size="sm" c="dimmed">
          {description}
        </Text>
      </Stack>
      {actions}
    </Group>
  );
}

/**
 * Names by id from a list (devices, parents); asked again, once per id, when a request names one the
 * list did not have yet (a device paired or a parent added since the page opened).
 */
function useNames<T>(
  list: Resource<ItemList<T>>,
  ids: (string | null)[],
  entry: (item: T) => [string, string],
): Map<string, string> {
  const names = new Map((list.data?.items ?? []).map(entry));
  const unknown = list.data ? ids.find((id) => id !== null && !names.has(id)) : undefined;
  const asked = useRef(new Set<string>());
  const { reload } = list;
  useEffect(() => {
    if (!unknown || asked.current.has(unknown)) return;
    asked.current.add(unknown);
    reload();
  }, [unknown, reload]);
  return names;
}

function ApprovalsSection({
  filter,
  onFilter,
}: {
  filter: ApprovalFilter;
  onFilter: (filter: ApprovalFilter) => void;
}) {
  const session = useSignedIn();
  const feed = useApprovalFeed(filter);
  // Requests another parent answered first, while this parent was deciding.
  const [overtaken, setOvertaken] = useState<ReadonlySet<string>>(() => new Set());
  const { record } = feed;
  const shown = [...(feed.pending ?? []), ...feed.decided];
  const deviceNames = useNames<DeviceView>(
    useDevices(),
    shown.map((a) => a.system_id),
    (d) => [d.system_id, d.display_name],
  );
  const parentNames = useNames<ParentView>(
    useParents(),
    shown.map((a) => a.decided_by),
    (p) => [p.id, p.username],
  );
  const deciderName = (id: string | null) =>
    id === session.parent.id ? 'you' : ((id && parentNames.get(id)) ?? 'another parent');

  const onConflict = useCallback(
    async (approval: ApprovalView) => {
      const now = await findApproval(approval);
      if (now && now.status !== 'pending') {
        setOvertaken((current) => new Set(current).add(approval.id));
        record(now);
      }
      return now;
    },
    [record],
  );

  const item = (approval: ApprovalView) => (
    <li key={approval.id}>
      <ApprovalItem
        approval={approval}
        deviceName={deviceNames.get(approval.system_id)}
        deciderName={deciderName}
        overtaken={overtaken.has(approval.id)}
        onDecided={record}
        onConflict={onConflict}
      />
    </li>
  );

  const { pending, decided } = feed;
  return (
    <Stack gap="md" component="section" aria-labelledby="approvals-title">
      <SectionHeading
        id="approvals-title"
        title="Approvals"
        count={pending?.length}
        description="Sign-ups on websites, more time, apps and blocked websites. The device hears your answer the next time it asks."
        actions={
          <SegmentedControl
            aria-label="Which approvals"
            value={filter}
            onChange={(value) => onFilter(value === 'all' ? 'all' : 'pending')}
            data={[
              { value: 'pending', label: 'Pending' },
              { value: 'all', label: 'All' },
            ]}
          />
        }
      />
      {feed.error && !pending ? (
        <ErrorAlert error={feed.error} onRetry={feed.reload} title="Could not load the approvals" />
      ) : null}
      {!pending && !feed.error ? (
        <Stack gap="sm" aria-busy="true">
          <Skeleton h={120} radius="md" />
          <Skeleton h={120} radius="md" />
        </Stack>
      ) : null}
      {pending?.length ? (
        <Stack gap="sm" component="ul" aria-label="Approval requests" style={listStyle}>
          {pending.map(item)}
        </Stack>
      ) : null}
      {pending && !pending.length && decided.length ? (
        // Answers just given sit below: a quiet line is enough.
        <Paper withBorder radius="md" px="md" py="sm">
          <Group gap="sm" wrap="nowrap" c="teal">
            <IconCheck size={18} style={{ flexShrink: 0 }} />
            <Text size="sm" fw={500}>
              Nothing waiting for you
            </Text>
          </Group>
        </Paper>
      ) : null}
      {pending && !pending.length && !decided.length ? (
        <Card withBorder radius="lg" py="lg">
          <EmptyState
            size="sm"
            icon={<IconCheck size={24} />}
            withIndicatorBackground
            title={filter === 'all' ? 'No approval requests yet' : 'Nothing waiting for you'}
            description="When a child asks to sign up on a website, for more time, for an app or for a blocked website, the request waits here for your answer."
            maw={520}
            mx="auto"
          />
        </Card>
      ) : null}
      {pending && decided.length ? (
        <Stack gap="xs">
          <Title order={3} fz="sm" c="dimmed" id="decided-title">
            {filter === 'all' ? 'Decided' : 'Just decided'}
          </Title>
          <Stack gap="sm" component="ul" aria-labelledby="decided-title" style={listStyle}>
            {decided.map(item)}
          </Stack>
        </Stack>
      ) : null}
    </Stack>
  );
}

export function AccessRequestsPage() {
  const [filters, setFilters] = useSearchFilters(FILTER_KEYS);
  const unreadOnly = filters.unread === '1';
  const feed = useAlertFeed(
    `/api/access-request?limit=${REQUESTS_PAGE_SIZE}${unreadOnly ? '&unacknowledged=true' : ''}`,
  );
  const showAll = () => setFilters({ unread: '' });

  return (
    <>
      <PageHeader
        title="Access Requests"
        description="When a child asks for more time, an app, a website or a new account, the request waits here for you."
      />
      <Stack gap={40}>
        <ApprovalsSection
          filter={filters.approvals === 'all' ? 'all' : 'pending'}
          onFilter={(value) => setFilters({ approvals: value === 'all' ? 'all' : '' })}
        />
        <Stack gap="md" component="section" aria-labelledby="messages-title">
          <SectionHeading
            id="messages-title"
            title="Messages"
            description="What your children wrote when they asked from their screen."
            actions={
              <SegmentedControl
                aria-label="Which requests"
                value={unreadOnly ? 'unread' : 'all'}
                onChange={(value) => setFilters({ unread: value === 'unread' ? '1' : '' })}
                data={[
                  { value: 'all', label: 'All' },
                  { value: 'unread', label: 'Unread' },
                ]}
              />
            }
          />
          <AlertList
            feed={feed}
            label="Access requests"
            empty={
              unreadOnly ? (
                <ListEmpty
                  icon={<IconInbox size={28} />}
                  title="Nothing unread"
                  description="You have read every message. New ones show up here as soon as a child sends one."
                  action={
                    <Button variant="light" onClick={showAll}>
                      Show all messages
                    </Button>
                  }
                />
              ) : (
                <ListEmpty
                  icon={<IconInbox size={28} />}
                  title="No requests right now"
                  description="You are all caught up. New requests show up here as soon as a child sends one."
                />
              )
            }
          />
        </Stack>
      </Stack>
    </>
  );
}
