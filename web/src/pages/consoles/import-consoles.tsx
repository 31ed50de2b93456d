// The wizard's import step: the vendor's consoles as checkboxes, each with a name in Hearth, the player
// who is the child there and the Hearth child; one import per console, each row with its own progress
// and the server's refusal in its words.
import {
  Anchor,
  Badge,
  Button,
  Checkbox,
  EmptyState,
  Group,
  Loader,
  NativeSelect,
  Paper,
  Skeleton,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { type FormEvent, useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { messageOf } from '../../api/client';
import {
  type ConsoleListing,
  type ConsoleProvider,
  useConsoleImported,
  useConsoleListing,
  useImportConsole,
  type VendorConsole,
  type VendorPlayer,
} from '../../api/consoles';
import { useUsers } from '../../api/resources';
import type { ManagedUserView } from '../../api/types';
import { IconCheck, IconGamepad, IconPlus } from '../../components/icons';
import { ErrorAlert } from '../../components/page';
import { NAME_MAX_LENGTH, plural } from '../../labels';
import { VENDORS } from './console-words';

type RowState =
  | { kind: 'idle' }
  | { kind: 'importing' }
  | { kind: 'done' }
  | { kind: 'failed'; message: string };

interface Row {
  checked: boolean;
  label: string;
  playerId: string;
  childId: string;
  state: RowState;
  problems: { label?: string; player?: string; child?: string };
}

/** The players who can be the child on this console: its own profiles (Nintendo), any child (Xbox). */
const playersOf = (listing: ConsoleListing, console: VendorConsole) =>
  listing.players.filter((p) => p.console_id === null || p.console_id === console.id);

/** A child called like the player ("Ann" for "Ann" or "Ann Rivera"). */
function namedAfter(child: ManagedUserView, player: VendorPlayer): boolean {
  const norm = (text: string) => text.trim().toLocaleLowerCase();
  const name = norm(child.name);
  return name === norm(player.name) || name === norm(player.name.split(/\s+/)[0] ?? '');
}

/** A first guess for a console: its only player, and the child that player belongs to or is named after. */
function firstRow(listing: ConsoleListing, console: VendorConsole, children: ManagedUserView[]): Row {
  const players = playersOf(listing, console);
  const player = players.length === 1 ? players[0] : undefined;
  const child =
    (player?.managed_user_id && children.find((c) => c.id === player.managed_user_id)) ||
    (player && children.find((c) => namedAfter(c, player)));
  return {
    checked: console.imported_system_id === null,
    label: console.name,
    playerId: player?.id ?? '',
    childId: child ? child.id : '',
    state: { kind: 'idle' },
    problems: {},
  };
}

function RowStatus({ state }: { state: RowState }) {
  if (state.kind === 'importing')
    return (
      <Group gap={6} data-testid="console-import-state">
        <Loader size="xs" color="hearth" />
        <Text size="sm" c="dimmed">
          Adding…
        </Text>
      </Group>
    );
  if (state.kind === 'done')
    return (
      <Group gap={4} c="teal" data-testid="console-import-state">
        <IconCheck size={16} />
        <Text size="sm" fw={500}>
          Added
        </Text>
      </Group>
    );
  if (state.kind === 'failed')
    return (
      <Text size="sm" c="red" fw={500} role="alert" data-testid="console-import-error">
        Not added: {state.message}
      </Text>
    );
  return null;
}

function ImportRow({
  provider,
  console,
  row,
  players,
  childList,
  childOfPlayer,
  onChange,
}: {
  provider: ConsoleProvider;
  console: VendorConsole;
  row: Row;
  players: VendorPlayer[];
  childList: ManagedUserView[];
  /** Who each player already belongs to, here or in another row being added now. */
  childOfPlayer: (player: VendorPlayer) => string | null;
  onChange: (row: Row) => void;
}) {
  const vendor = VENDORS[provider];
  const imported = console.imported_system_id !== null;
  const locked = imported || row.state.kind === 'done' || row.state.kind === 'importing';
  const names = new Map(childList.map((c) => [c.id, c.name]));

  const playerOptions = [
    { value: '', label: players.length ? `Choose the ${vendor.player}…` : 'No players on this console' },
    ...players.map((p) => {
      const owner = childOfPlayer(p);
      const elsewhere = owner !== null && row.childId !== '' && owner !== row.childId;
      return {
        value: p.id,
        label: elsewhere
          ? `${p.name} — already ${names.get(owner) ?? 'another child'}’s`
          : owner
            ? `${p.name} (${names.get(owner) ?? 'another child'})`
            : p.name,
        disabled: elsewhere,
      };
    }),
  ];
  const childOptions = [
    { value: '', label: childList.length ? 'Choose a child…' : 'No children yet' },
    ...childList.map((c) => ({ value: c.id, label: c.name })),
  ];

  const choosePlayer = (playerId: string) => {
    const player = players.find((p) => p.id === playerId);
    const owner = player ? childOfPlayer(player) : null;
    onChange({
      ...row,
      playerId,
      // A player who is already a child's comes with that child; else a child of the same name.
      childId: owner ?? (row.childId || (player && childList.find((c) => namedAfter(c, player))?.id) || ''),
      problems: { ...row.problems, player: undefined },
    });
  };
  const chooseChild = (childId: string) => {
    const player = players.find((p) => p.id === row.playerId);
    const owner = player ? childOfPlayer(player) : null;
    onChange({
      ...row,
      childId,
      playerId: owner && owner !== childId ? '' : row.playerId,
      problems: { ...row.problems, child: undefined },
    });
  };

  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      component="li"
      data-testid={`console-import-row-${console.id}`}
      style={row.checked && !imported ? { borderColor: 'var(--mantine-color-hearth-3)' } : undefined}
    >
      <Stack gap="sm">
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Checkbox
            label={
              <Text fw={600} span style={{ overflowWrap: 'anywhere' }}>
                {console.name}
              </Text>
            }
            checked={imported || row.checked}
            disabled={locked}
            onChange={(e) => onChange({ ...row, checked: e.currentTarget.checked })}
            data-testid="console-import-check"
          />
          {imported ? (
            <Badge variant="light" color="teal" radius="sm">
              Already added
            </Badge>
          ) : (
            <RowStatus state={row.state} />
          )}
        </Group>
        {row.checked && !imported ? (
          <Group align="flex-start" gap="sm" grow preventGrowOverflow={false} wrap="wrap">
            <TextInput
              label="Name in Hearth"
              value={row.label}
              onChange={(e) =>
                onChange({
                  ...row,
                  label: e.currentTarget.value,
                  problems: { ...row.problems, label: undefined },
                })
              }
              error={row.problems.label}
              maxLength={NAME_MAX_LENGTH}
              disabled={locked}
              miw={180}
              data-testid="console-import-label"
            />
            <NativeSelect
              label={vendor.player}
              data={playerOptions}
              value={row.playerId}
              onChange={(e) => choosePlayer(e.currentTarget.value)}
              error={row.problems.player}
              disabled={locked || !players.length}
              miw={180}
              data-testid="console-import-player"
            />
            <NativeSelect
              label="Child"
              data={childOptions}
              value={row.childId}
              onChange={(e) => chooseChild(e.currentTarget.value)}
              error={row.problems.child}
              disabled={locked || !childList.length}
              miw={160}
              data-testid="console-import-child"
            />
          </Group>
        ) : null}
      </Stack>
    </Paper>
  );
}

export function ImportConsoles({
  provider,
  onDone,
  onSkip,
}: {
  provider: ConsoleProvider;
  /** Every chosen console was added (`count` of them). */
  onDone: (count: number) => void;
  onSkip: () => void;
}) {
  const vendor = VENDORS[provider];
  const listing = useConsoleListing(provider);
  const users = useUsers();
  const importConsole = useImportConsole(provider);
  const imported = useConsoleImported();
  const [rows, setRows] = useState<Record<string, Row>>({});
  const [busy, setBusy] = useState(false);
  const [nothing, setNothing] = useState(false);
  const children = users.data?.items ?? [];
  const data = listing.data;

  // Each console gets its first guess once both lists are here; what a parent changed stays.
  useEffect(() => {
    if (!data || !users.data) return;
    const known = users.data.items;
    setRows((current) => {
      const next = { ...current };
      for (const console of data.consoles) next[console.id] ??= firstRow(data, console, known);
      return next;
    });
  }, [data, users.data]);

  const setRow = (id: string, row: Row) => {
    setNothing(false);
    setRows((current) => ({ ...current, [id]: row }));
  };

  /** The child a player already belongs to on the server, or in another row chosen now. */
  const childOfPlayer = (consoleId: string) => (player: VendorPlayer) => {
    if (player.managed_user_id) return player.managed_user_id;
    for (const [id, row] of Object.entries(rows)) {
      if (id !== consoleId && row.checked && row.playerId === player.id && row.childId) return row.childId;
    }
    return null;
  };

  /** Consoles added by an earlier press of the button (some of a batch failed). */
  const doneBefore = () => Object.values(rows).filter((r) => r.state.kind === 'done').length;

  const pending = (data?.consoles ?? []).filter(
    (c) => c.imported_system_id === null && rows[c.id]?.checked && rows[c.id]?.state.kind !== 'done',
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!data) return;
    if (!pending.length) {
      setNothing(true);
      return;
    }
    // What a parent can fix before anything is sent.
    let ready = true;
    const checked: Record<string, Row> = { ...rows };
    for (const console of pending) {
      const row = checked[console.id] as Row;
      const problems = {
        label: row.label.trim() ? undefined : 'Give the console a name.',
        player: row.playerId ? undefined : `Choose who plays as the child on ${console.name}.`,
        child: row.childId ? undefined : 'Choose the child.',
      };
      if (problems.label || problems.player || problems.child) ready = false;
      checked[console.id] = { ...row, problems, state: { kind: 'idle' } };
    }
    setRows(checked);
    if (!ready) return;

    setBusy(true);
    let added = 0;
    const childIds = new Set<string>();
    // One console at a time, so a refusal (the player is another child's) names the right row.
    for (const console of pending) {
      const row = checked[console.id] as Row;
      setRows((current) => ({ ...current, [console.id]: { ...row, state: { kind: 'importing' } } }));
      try {
        await importConsole.mutateAsync({
          console_id: console.id,
          label: row.label.trim(),
          player_id: row.playerId,
          managed_user_id: row.childId,
        });
        added += 1;
        childIds.add(row.childId);
        setRows((current) => ({ ...current, [console.id]: { ...row, state: { kind: 'done' } } }));
      } catch (err) {
        setRows((current) => ({
          ...current,
          [console.id]: { ...row, state: { kind: 'failed', message: messageOf(err) } },
        }));
      }
    }
    if (added) imported([...childIds]);
    setBusy(false);
    if (added === pending.length) onDone(added + doneBefore());
  }

  if ((listing.error && !data) || (users.error && !users.data)) {
    return (
      <Stack gap="md">
        <ErrorAlert
          error={listing.error ?? users.error}
          onRetry={() => {
            listing.reload();
            users.reload();
          }}
          title={
            listing.error
              ? `Could not ask ${vendor.company} for your consoles`
              : 'Could not load your children'
          }
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onSkip}>
            Skip for now
          </Button>
        </Group>
      </Stack>
    );
  }
  if (!data || !users.data) {
    return (
      <Stack gap="sm" aria-busy="true" aria-label={`Asking ${vendor.company} for your consoles`}>
        <Skeleton h={56} radius="md" />
        <Skeleton h={56} radius="md" />
      </Stack>
    );
  }

  if (!data.consoles.length) {
    return (
      <Stack gap="md">
        <EmptyState
          size="sm"
          icon={<IconGamepad size={24} />}
          withIndicatorBackground
          title={`No ${vendor.name} consoles on this account`}
          description={`A console shows up here once it is set up with this ${vendor.account} in the ${vendor.app} app. Come back with “Add a console” afterwards.`}
          py="md"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onSkip}>
            Continue
          </Button>
        </Group>
      </Stack>
    );
  }

  const failed = Object.values(rows).some((r) => r.state.kind === 'failed');
  return (
    <form onSubmit={submit} noValidate aria-label="Choose consoles">
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Choose the consoles Hearth should look after. For each one, choose who plays as the child there and
          which child that is: their routine becomes the console’s limits, and their playtime counts as
          theirs.
        </Text>
        {!children.length ? (
          <Text size="sm" data-testid="console-no-children">
            Hearth has no children yet.{' '}
            <Anchor component={Link} to="/children">
              Add a child
            </Anchor>{' '}
            first, then come back with “Add a console”.
          </Text>
        ) : null}
        <Stack gap="sm" component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
          {data.consoles.map((console) => {
            const row = rows[console.id];
            if (!row) return null;
            return (
              <ImportRow
                key={console.id}
                provider={provider}
                console={console}
                row={row}
                players={playersOf(data, console)}
                childList={children}
                childOfPlayer={childOfPlayer(console.id)}
                onChange={(next) => setRow(console.id, next)}
              />
            );
          })}
        </Stack>
        {nothing ? (
          <Text size="sm" c="red" role="alert">
            Tick at least one console, or choose “Skip for now”.
          </Text>
        ) : null}
        {failed && !busy ? (
          <Text size="sm" c="dimmed">
            The consoles that were not added stay ticked: change what the message asks and try again.
          </Text>
        ) : null}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onSkip} disabled={busy}>
            {doneBefore() ? 'Continue' : 'Skip for now'}
          </Button>
          <Button
            type="submit"
            loading={busy}
            leftSection={<IconPlus size={16} />}
            data-testid="console-import"
            disabled={!children.length}
          >
            {pending.length > 1 ? `Add ${plural(pending.length, 'console')}` : 'Add console'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
