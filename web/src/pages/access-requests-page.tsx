import { Button, SegmentedControl } from '@mantine/core';
import { useAlertFeed } from '../api/alerts';
import type { AlertView } from '../api/types';
import { useSearchFilters } from '../api/use-search-filters';
import { IconInbox } from '../components/icons';
import { PageHeader } from '../components/page';
import { AlertList, ListEmpty } from './alert-list';

export const REQUESTS_PAGE_SIZE = 20;
const FILTER_KEYS = ['unread'] as const;

// Sign-up approvals join this list later as a second kind, each item with its badge.
const isRequest = (alert: AlertView) => alert.kind === 'access_requested';

export function AccessRequestsPage() {
  const [filters, setFilters] = useSearchFilters(FILTER_KEYS);
  const unreadOnly = filters.unread === '1';
  const feed = useAlertFeed(
    `/api/access-request?limit=${REQUESTS_PAGE_SIZE}${unreadOnly ? '&unacknowledged=true' : ''}`,
    isRequest,
  );
  const showAll = () => setFilters(null);

  return (
    <>
      <PageHeader
        title="Access Requests"
        description="When a child asks for more time, an app, a website or a new account, the request waits here for you."
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
              description="You have read every request. New ones show up here as soon as a child sends one."
              action={
                <Button variant="light" onClick={showAll}>
                  Show all requests
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
    </>
  );
}
