import {
  Button,
  Card,
  CloseButton,
  Group,
  Paper,
  Select,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import { useDebouncedValue, useMediaQuery } from '@mantine/hooks';
import {
  defaultOrder,
  type OnlineAccountSort,
  type OnlineAccountView,
  onlineAccountsPath,
  type SortOrder,
} from '../api/approvals';
import { useDevices, useOnlineAccounts, useUsers } from '../api/resources';
import { useSearchFilters } from '../api/use-search-filters';
import { ChildAvatar } from '../components/child-bits';
import { RelativeTime } from '../components/device-bits';
import {
  IconArrowDown,
  IconArrowUp,
  IconGlobe,
  IconSearch,
  IconSelector,
  IconShield,
} from '../components/icons';
import { ErrorAlert, PageHeader, StaleNotice } from '../components/page';
import { exactTime, plural } from '../labels';
import { ListEmpty } from './alert-list';

const FILTER_KEYS = ['q', 'child', 'sort', 'order'] as const;
const SEARCH_DELAY_MS = 250;
// Below Mantine's `sm` breakpoint the navigation folds away and each account becomes a card.
const PHONE_QUERY = '(max-width: 47.99em)';

const COLUMN_LABELS: Record<OnlineAccountSort, string> = {
  domain: 'Domain',
  username: 'Username / email',
  first_detected_at: 'First detected',
  last_active_at: 'Last active',
};
const SORTS = Object.keys(COLUMN_LABELS) as OnlineAccountSort[];
const isSort = (value: string): value is OnlineAccountSort => SORTS.includes(value as OnlineAccountSort);

/** The phone's "Sort by" choices: each column both ways, names A to Z first, dates newest first. */
const SORT_OPTIONS = SORTS.flatMap((sort) => {
  const byName = sort === 'domain' || sort === 'username';
  const [first, second] = byName ? ['A to Z', 'Z to A'] : ['newest first', 'oldest first'];
  const label = COLUMN_LABELS[sort];
  return [
    { value: `${sort}:${defaultOrder(sort)}`, label: `${label}, ${first}` },
    { value: `${sort}:${defaultOrder(sort) === 'asc' ? 'desc' : 'asc'}`, label: `${label}, ${second}` },
  ];
});

// In the table a domain or username stays on one line (the table scrolls sideways when it must); only
// a very long one wraps, anywhere.
const WHOLE_UP_TO = 40;
function keepWhole(text: string) {
  return text.length > WHOLE_UP_TO
    ? { overflowWrap: 'anywhere' as const }
    : { whiteSpace: 'nowrap' as const };
}

function shortDate(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
}

function FirstDetected({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={exactTime(iso)}>
      {shortDate(iso)}
    </time>
  );
}

/** The child the account belongs to and the device it was seen on. */
function Owner({ account, deviceName }: { account: OnlineAccountView; deviceName: string | undefined }) {
  const where = [deviceName, account.linux_username ? `account ${account.linux_username}` : null]
    .filter(Boolean)
    .join(' · ');
  return (
    <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
      {account.managed_user_name ? <ChildAvatar name={account.managed_user_name} size="sm" /> : null}
      <Stack gap={0} style={{ minWidth: 0 }}>
        <Text size="sm" fw={500} c={account.managed_user_name ? undefined : 'dimmed'}>
          {account.managed_user_name ?? 'Not linked to a child'}
        </Text>
        {where ? (
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {where}
          </Text>
        ) : null}
      </Stack>
    </Group>
  );
}

function SortHeader({
  column,
  sort,
  order,
  onSort,
}: {
  column: OnlineAccountSort;
  sort: OnlineAccountSort;
  order: SortOrder;
  onSort: (column: OnlineAccountSort) => void;
}) {
  const active = column === sort;
  const Arrow = !active ? IconSelector : order === 'asc' ? IconArrowUp : IconArrowDown;
  return (
    <Table.Th aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : undefined} p={0}>
      <UnstyledButton
        onClick={() => onSort(column)}
        className="hearth-sort"
        data-active={active || undefined}
        px="md"
        py="sm"
        w="100%"
      >
        <Group gap={6} wrap="nowrap">
          <Text span size="sm" fw={700} style={{ whiteSpace: 'nowrap' }}>
            {COLUMN_LABELS[column]}
          </Text>
          <Arrow size={14} style={{ flexShrink: 0, opacity: active ? 1 : 0.45 }} />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}

function AccountsTable({
  accounts,
  deviceNames,
  sort,
  order,
  onSort,
}: {
  accounts: OnlineAccountView[];
  deviceNames: Map<string, string>;
  sort: OnlineAccountSort;
  order: SortOrder;
  onSort: (column: OnlineAccountSort) => void;
}) {
  const header = (column: OnlineAccountSort) => (
    <SortHeader column={column} sort={sort} order={order} onSort={onSort} />
  );
  return (
    <Card withBorder radius="lg" p={0}>
      <Table.ScrollContainer minWidth={760} type="native">
        <Table verticalSpacing="sm" horizontalSpacing="md" highlightOnHover aria-label="Online accounts">
          <Table.Thead>
            <Table.Tr>
              {header('domain')}
              {header('username')}
              <Table.Th>Child</Table.Th>
              {header('first_detected_at')}
              {header('last_active_at')}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {accounts.map((account) => (
              <Table.Tr key={account.id} data-testid="account-row">
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <IconGlobe size={16} style={{ flexShrink: 0, color: 'var(--mantine-color-dimmed)' }} />
                    <Text size="sm" fw={600} style={keepWhole(account.domain)} data-testid="account-domain">
                      {account.domain}
                    </Text>
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" style={keepWhole(account.username)} data-testid="account-username">
                    {account.username}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Owner
                    account={account}
                    deviceName={account.system_id ? deviceNames.get(account.system_id) : undefined}
                  />
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Text size="sm">
                    <FirstDetected iso={account.first_detected_at} />
                  </Text>
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Text size="sm">
                    <RelativeTime iso={account.last_active_at} />
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}

function AccountCards({
  accounts,
  deviceNames,
}: {
  accounts: OnlineAccountView[];
  deviceNames: Map<string, string>;
}) {
  return (
    <Stack
      gap="sm"
      component="ul"
      aria-label="Online accounts"
      style={{ listStyle: 'none', margin: 0, padding: 0 }}
    >
      {accounts.map((account) => (
        <Paper component="li" withBorder radius="md" p="md" key={account.id} data-testid="account-row">
          <Stack gap={6}>
            <Group gap="xs" wrap="nowrap">
              <IconGlobe size={16} style={{ flexShrink: 0, color: 'var(--mantine-color-dimmed)' }} />
              <Text fw={600} style={{ overflowWrap: 'anywhere' }} data-testid="account-domain">
                {account.domain}
              </Text>
            </Group>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid="account-username">
              {account.username}
            </Text>
            <Owner
              account={account}
              deviceName={account.system_id ? deviceNames.get(account.system_id) : undefined}
            />
            <Text size="xs" c="dimmed">
              First detected <FirstDetected iso={account.first_detected_at} /> · active{' '}
              <RelativeTime iso={account.last_active_at} />
            </Text>
          </Stack>
        </Paper>
      ))}
    </Stack>
  );
}

export function OnlineAccountsPage() {
  const [filters, setFilters] = useSearchFilters(FILTER_KEYS);
  const sort: OnlineAccountSort = isSort(filters.sort) ? filters.sort : 'last_active_at';
  const order: SortOrder =
    filters.order === 'asc' || filters.order === 'desc' ? filters.order : defaultOrder(sort);
  const [q] = useDebouncedValue(filters.q, SEARCH_DELAY_MS);
  const accounts = useOnlineAccounts(
    { q, sort, order, childId: filters.child },
    onlineAccountsPath({ q, sort, order, childId: filters.child }),
  );
  const users = useUsers();
  const devices = useDevices();
  const phone = useMediaQuery(PHONE_QUERY, undefined, { getInitialValueInEffect: false });

  const onSort = (column: OnlineAccountSort) => {
    const next = column === sort ? (order === 'asc' ? 'desc' : 'asc') : defaultOrder(column);
    // The default order of the default column leaves the address clean.
    const plain = column === 'last_active_at' && next === defaultOrder(column);
    setFilters({ sort: plain ? '' : column, order: next === defaultOrder(column) ? '' : next });
  };

  const childOptions = [
    { value: '', label: 'All children' },
    ...(users.data?.items ?? []).map((c) => ({ value: c.id, label: c.name })),
  ];
  if (filters.child && !childOptions.some((o) => o.value === filters.child))
    childOptions.push({ value: filters.child, label: 'A child' });
  const deviceNames = new Map((devices.data?.items ?? []).map((d) => [d.system_id, d.display_name]));
  const items = accounts.data?.items;
  const filtered = !!(filters.q.trim() || filters.child);
  const searching = filters.q.trim();

  return (
    <>
      <PageHeader
        title="Online Accounts"
        description="Accounts your children sign in to on websites, and when each was last used."
      />
      <Stack gap="lg">
        <Card withBorder radius="lg" padding="md" component="section" aria-label="Search and filters">
          <Group align="flex-end" gap="md" wrap="wrap">
            <TextInput
              label="Search"
              placeholder="Domain, username or email"
              type="search"
              value={filters.q}
              onChange={(e) => setFilters({ q: e.currentTarget.value })}
              leftSection={<IconSearch size={16} />}
              rightSection={
                filters.q ? (
                  <CloseButton size="sm" aria-label="Clear search" onClick={() => setFilters({ q: '' })} />
                ) : null
              }
              autoCapitalize="none"
              spellCheck={false}
              className="hearth-search"
              style={{ flex: '2 1 16rem' }}
            />
            <Select
              label="Child"
              data={childOptions}
              value={filters.child}
              onChange={(value) => setFilters({ child: value ?? '' })}
              allowDeselect={false}
              style={{ flex: '1 1 11rem' }}
            />
            {phone ? (
              <Select
                label="Sort by"
                data={SORT_OPTIONS}
                value={`${sort}:${order}`}
                onChange={(value) => {
                  const [column = '', direction = ''] = (value ?? '').split(':');
                  if (!isSort(column)) return;
                  const plainOrder = direction === defaultOrder(column) ? '' : direction;
                  setFilters({
                    sort: column === 'last_active_at' && !plainOrder ? '' : column,
                    order: plainOrder,
                  });
                }}
                allowDeselect={false}
                style={{ flex: '1 1 11rem' }}
              />
            ) : null}
          </Group>
        </Card>

        {accounts.error && !items ? (
          <ErrorAlert error={accounts.error} onRetry={accounts.reload} title="Could not load the accounts" />
        ) : null}
        {items ? <StaleNotice error={accounts.error} /> : null}
        {!items && !accounts.error ? (
          <Stack gap="sm" aria-busy="true">
            <Skeleton h={48} radius="md" />
            <Skeleton h={56} radius="md" />
            <Skeleton h={56} radius="md" />
          </Stack>
        ) : null}

        {items ? (
          <Text size="sm" c="dimmed" role="status" data-testid="account-count">
            {items.length
              ? searching
                ? `${plural(items.length, 'account')} matching “${searching}”`
                : plural(items.length, 'account')
              : ''}
          </Text>
        ) : null}

        {items?.length ? (
          phone ? (
            <AccountCards accounts={items} deviceNames={deviceNames} />
          ) : (
            <AccountsTable
              accounts={items}
              deviceNames={deviceNames}
              sort={sort}
              order={order}
              onSort={onSort}
            />
          )
        ) : null}

        {items && !items.length ? (
          <Card withBorder radius="lg" py={56}>
            {filtered ? (
              <ListEmpty
                icon={<IconSearch size={28} />}
                title="No accounts match"
                description={
                  searching
                    ? `No domain, username or email contains “${searching}”. Try fewer letters, or another child.`
                    : 'Nothing has been recorded for this child yet.'
                }
                action={
                  <Button variant="light" onClick={() => setFilters({ q: '', child: '' })}>
                    Clear search and filters
                  </Button>
                }
              />
            ) : (
              <ListEmpty
                icon={<IconGlobe size={28} />}
                title="No accounts seen yet"
                description="When a child signs in to a website on a computer with Hearth’s browser extension, the site and the username or email are listed here. Passwords are never read or kept."
              />
            )}
          </Card>
        ) : null}
        {items?.length ? (
          <Group gap={6} wrap="nowrap" c="dimmed" align="flex-start">
            <IconShield size={16} style={{ flexShrink: 0, marginTop: 2 }} />
            <Text size="xs">
              Hearth’s browser extension records the site and the username or email of each sign-in on your
              children’s computers. Passwords are never read or kept.
            </Text>
          </Group>
        ) : null}
      </Stack>
    </>
  );
}
