// A linked vendor's sync state: when Hearth last synced, Sync now with its progress and result, and
// each imported console with its child, player, last sync, error and what it could not hold.
import { Anchor, Button, Group, List, Paper, Stack, Text, ThemeIcon } from '@mantine/core';
import { Link } from 'react-router-dom';
import { messageOf } from '../../api/client';
import {
  type ConsoleAccountStatus,
  type ConsoleProvider,
  type ConsoleSyncItem,
  useSyncConsoles,
} from '../../api/consoles';
import { useUsers } from '../../api/resources';
import { ConsoleNotes, ConsoleSynced } from '../../components/console-bits';
import { IconAlert, IconGamepad, IconRefresh } from '../../components/icons';
import { plural } from '../../labels';
import { syncResultText, VENDORS } from './console-words';

function ImportedConsole({
  provider,
  item,
  childName,
}: {
  provider: ConsoleProvider;
  item: ConsoleSyncItem;
  childName: string | null;
}) {
  const vendor = VENDORS[provider];
  return (
    <Paper withBorder radius="md" p="sm" component="li" data-testid={`console-row-${item.system_id}`}>
      <Group wrap="nowrap" align="flex-start" gap="sm">
        <ThemeIcon variant="light" color={vendor.color} radius="md" size="lg" visibleFrom="xs">
          <IconGamepad size={20} />
        </ThemeIcon>
        <Stack gap={4} style={{ flex: 1, minWidth: 0 }}>
          <Group justify="space-between" gap="xs" align="baseline">
            <Anchor
              component={Link}
              to={`/devices/${encodeURIComponent(item.system_id)}`}
              fw={600}
              style={{ overflowWrap: 'anywhere' }}
              data-testid="console-name"
            >
              {item.name}
            </Anchor>
            <ConsoleSynced lastSyncAt={item.last_sync_at} stale={item.stale} />
          </Group>
          <Text size="sm" data-testid="console-player">
            {childName ? (
              <Anchor component={Link} to={`/children/${encodeURIComponent(item.managed_user_id)}`}>
                {childName}
              </Anchor>
            ) : (
              <Text span c="dimmed" size="sm">
                No child
              </Text>
            )}
            <Text span c="dimmed" size="sm">
              {' '}
              plays as{' '}
            </Text>
            <b>{item.player_name}</b>
          </Text>
          {item.error ? (
            <Group gap={6} wrap="nowrap" align="flex-start" c="red" data-testid="console-error">
              <IconAlert size={16} style={{ flex: 'none', marginTop: 2 }} />
              <Text size="sm">{item.error}</Text>
            </Group>
          ) : null}
          <ConsoleNotes notes={item.notes} />
        </Stack>
      </Group>
    </Paper>
  );
}

/** The imported consoles, each with its child. */
export function ImportedConsoles({
  provider,
  status,
}: {
  provider: ConsoleProvider;
  status: ConsoleAccountStatus;
}) {
  const users = useUsers();
  const names = new Map(users.data?.items.map((u) => [u.id, u.name]));
  if (!status.consoles.length) {
    return (
      <Text size="sm" c="dimmed" data-testid="console-none">
        No {VENDORS[provider].name} console is added yet. Add one to give it a child’s routine.
      </Text>
    );
  }
  return (
    <Stack
      gap="xs"
      component="ul"
      style={{ listStyle: 'none', margin: 0, padding: 0 }}
      aria-label={`${VENDORS[provider].name} consoles`}
    >
      {status.consoles.map((item) => (
        <ImportedConsole
          key={item.system_id}
          provider={provider}
          item={item}
          childName={names.get(item.managed_user_id) ?? null}
        />
      ))}
    </Stack>
  );
}

/** When Hearth last synced, and Sync now with its progress and its result in words. */
export function SyncNow({
  provider,
  status,
  canSync,
}: {
  provider: ConsoleProvider;
  status: ConsoleAccountStatus;
  canSync: boolean;
}) {
  const sync = useSyncConsoles(provider);
  const vendor = VENDORS[provider];
  const result = sync.data;
  return (
    <Stack gap={6}>
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Stack gap={0}>
          <Text size="sm" fw={500}>
            Last sync
          </Text>
          <ConsoleSynced lastSyncAt={status.last_sync_at} />
        </Stack>
        {canSync ? (
          <Button
            variant="light"
            leftSection={<IconRefresh size={16} />}
            loading={sync.isPending}
            onClick={() => sync.mutate()}
            data-testid="console-sync-now"
            aria-label={`Sync now (${vendor.name})`}
          >
            Sync now
          </Button>
        ) : null}
      </Group>
      <div aria-live="polite" data-testid="console-sync-result">
        {sync.isPending ? (
          <Text size="sm" c="dimmed">
            Syncing with {vendor.company}: playtime in, routines out…
          </Text>
        ) : null}
        {!sync.isPending && result ? (
          <Stack gap={2}>
            <Text size="sm" fw={500} c={result.errors.length ? 'yellow' : 'teal'}>
              {result.errors.length
                ? result.synced
                  ? `Synced ${plural(result.synced, 'console')}, but not everything:`
                  : 'Nothing was synced:'
                : syncResultText(result.synced)}
            </Text>
            {result.errors.length ? (
              <List size="sm" c="red" spacing={2}>
                {result.errors.map((error) => (
                  <List.Item key={error}>{error}</List.Item>
                ))}
              </List>
            ) : null}
          </Stack>
        ) : null}
        {!sync.isPending && sync.error ? (
          <Text size="sm" fw={500} c="red">
            Not synced: {messageOf(sync.error)}
          </Text>
        ) : null}
      </div>
    </Stack>
  );
}
