import {
  Alert,
  Button,
  Card,
  CloseButton,
  Group,
  Modal,
  NumberInput,
  Select,
  Stack,
  Switch,
  Text,
} from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useAlertFeed, useAlertKinds } from '../api/alerts';
import { api, messageOf } from '../api/client';
import { keys } from '../api/keys';
import { useUsers } from '../api/resources';
import type { PruneResult } from '../api/types';
import { useSearchFilters } from '../api/use-search-filters';
import { IconBell, IconCheck, IconTrash } from '../components/icons';
import { ErrorAlert, PageHeader } from '../components/page';
import { alertKindOptions, plural } from '../labels';
import { useSession, useSignedIn } from '../session';
import { AlertList, ListEmpty } from './alert-list';

export const ALERTS_PAGE_SIZE = 20;
const DEFAULT_PRUNE_DAYS = 30;
const MAX_PRUNE_DAYS = 3650;
const FILTER_KEYS = ['kind', 'child', 'unread'] as const;

function ClearOldAlertsModal({
  onClose,
  onCleared,
}: {
  onClose: () => void;
  onCleared: (n: number) => void;
}) {
  const session = useSignedIn();
  const [days, setDays] = useState<string | number>(DEFAULT_PRUNE_DAYS);
  const [invalid, setInvalid] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const whole = typeof days === 'number' && Number.isInteger(days) ? days : null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    if (whole === null || whole < 0 || whole > MAX_PRUNE_DAYS) {
      setInvalid(`Enter a whole number of days from 0 to ${MAX_PRUNE_DAYS}.`);
      return;
    }
    setInvalid(null);
    setBusy(true);
    try {
      const result = await api.post<PruneResult>('/api/alerts/prune', { older_than_days: whole });
      onCleared(result.deleted);
    } catch (err) {
      setFailure(messageOf(err));
      setBusy(false);
    }
  }

  const what =
    whole === 0
      ? 'Every alert and access request, including today’s,'
      : whole === null
        ? 'Alerts and access requests older than that'
        : `Alerts and access requests older than ${plural(whole, 'day')}`;
  return (
    <Modal opened onClose={onClose} title="Clear old alerts?" centered>
      <form onSubmit={submit} noValidate aria-label="Clear old alerts">
        <Stack gap="md">
          <ErrorAlert error={failure} title="Nothing was deleted" />
          <NumberInput
            label="Delete alerts older than (days)"
            description="0 deletes every alert, including today’s."
            value={days}
            onChange={setDays}
            min={0}
            max={MAX_PRUNE_DAYS}
            allowDecimal={false}
            allowNegative={false}
            error={invalid}
            data-autofocus
          />
          <Text size="sm">
            {what} will be deleted for everyone in {session.household.name}. This cannot be undone.
          </Text>
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" color="red" loading={busy} leftSection={<IconTrash size={16} />}>
              Delete old alerts
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export function AlertsPage() {
  const { isAdmin } = useSession();
  const cache = useQueryClient();
  const [filters, setFilters] = useSearchFilters(FILTER_KEYS);
  const { kind, child } = filters;
  const unreadOnly = filters.unread === '1';
  const users = useUsers();
  const [clearing, setClearing] = useState(false);
  const [cleared, setCleared] = useState<number | null>(null);

  const query = new URLSearchParams({ limit: String(ALERTS_PAGE_SIZE) });
  if (kind) query.set('kind', kind);
  if (child) query.set('managed_user_id', child);
  if (unreadOnly) query.set('unacknowledged', 'true');
  const feed = useAlertFeed(`/api/alerts?${query}`);

  const filtered = !!(kind || child || unreadOnly);
  const kindOptions = [{ value: '', label: 'All kinds' }, ...alertKindOptions(useAlertKinds() ?? undefined)];
  // A kind named in the address but not (yet) in the list still shows as chosen.
  if (kind && !kindOptions.some((o) => o.value === kind)) kindOptions.push(...alertKindOptions([kind]));
  const childOptions = [
    { value: '', label: 'All children' },
    ...(users.data?.items ?? []).map((c) => ({ value: c.id, label: c.name })),
  ];
  // A child named in the address but not (yet) in the list still shows as chosen.
  if (child && !childOptions.some((o) => o.value === child))
    childOptions.push({ value: child, label: 'A child' });

  return (
    <>
      <PageHeader
        title="Alerts"
        description="Things worth knowing about, such as a device clock being changed or a child asking for help."
        actions={
          isAdmin ? (
            <Button variant="default" leftSection={<IconTrash size={16} />} onClick={() => setClearing(true)}>
              Clear old alerts
            </Button>
          ) : null
        }
      />
      <Stack gap="lg">
        <Card withBorder radius="lg" padding="md" component="section" aria-label="Filters">
          <Group align="flex-end" gap="md" wrap="wrap">
            <Select
              label="Kind"
              data={kindOptions}
              value={kind}
              onChange={(value) => setFilters({ kind: value ?? '' })}
              allowDeselect={false}
              style={{ flex: '1 1 12rem' }}
            />
            <Select
              label="Child"
              data={childOptions}
              value={child}
              onChange={(value) => setFilters({ child: value ?? '' })}
              allowDeselect={false}
              style={{ flex: '1 1 12rem' }}
            />
            <Switch
              label="Unread only"
              checked={unreadOnly}
              onChange={(e) => setFilters({ unread: e.currentTarget.checked ? '1' : '' })}
              mb={8}
            />
          </Group>
        </Card>
        {cleared !== null ? (
          <Alert
            variant="light"
            color="teal"
            icon={<IconCheck />}
            role="status"
            data-testid="prune-result"
            title={cleared ? `Deleted ${plural(cleared, 'alert')}` : 'Nothing to delete'}
          >
            <Group justify="space-between" wrap="nowrap" align="flex-start">
              <Text size="sm">
                {cleared
                  ? 'The old alerts are gone for everyone in the household.'
                  : 'No alert was that old, so nothing changed.'}
              </Text>
              <CloseButton size="sm" aria-label="Hide this message" onClick={() => setCleared(null)} />
            </Group>
          </Alert>
        ) : null}
        <AlertList
          feed={feed}
          label="Alerts"
          empty={
            filtered ? (
              <ListEmpty
                icon={<IconBell size={28} />}
                title="No alerts match"
                description="Nothing fits these filters. Try another kind or child, or show read alerts too."
                action={
                  <Button variant="light" onClick={() => setFilters(null)}>
                    Clear filters
                  </Button>
                }
              />
            ) : (
              <ListEmpty
                icon={<IconBell size={28} />}
                title="All quiet"
                description="Nothing needs your attention. Alerts from your household’s devices will appear here."
              />
            )
          }
        />
      </Stack>
      {clearing ? (
        <ClearOldAlertsModal
          onClose={() => setClearing(false)}
          onCleared={(deleted) => {
            setClearing(false);
            setCleared(deleted);
            // Every alert list, the badge and the dashboard catch up.
            void cache.invalidateQueries({ queryKey: keys.alerts() });
            void cache.invalidateQueries({ queryKey: keys.dashboard() });
          }}
        />
      ) : null}
    </>
  );
}
