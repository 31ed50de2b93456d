// The household's blocklists (DESIGN §11): each list with its size, format, when it was last
// downloaded and what went wrong in plain words; adding, refreshing, renaming and removing a list
// (owners and admins). Which lists a child gets is chosen on the child's Websites page.
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  EmptyState,
  Group,
  Skeleton,
  Stack,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import {
  type BlocklistSource,
  useBlocklistSources,
  useDeleteSource,
  useRefreshSource,
  useRenameSource,
} from '../../api/blocklists';
import { useUsers } from '../../api/resources';
import { ConfirmDialog, RenameDialog } from '../../components/dialogs';
import { IconAlert, IconBlock, IconPlus, IconRefresh, IconTrash } from '../../components/icons';
import { ErrorAlert, notifySaved, PageHeader, StaleNotice } from '../../components/page';
import { exactTime, NAME_MAX_LENGTH } from '../../labels';
import { useSession } from '../../session';
import { AddListDialog } from './add-list-dialog';
import {
  domainCount,
  exceptionsText,
  fetchErrorText,
  formatText,
  KIND_LABELS,
  lastErrorText,
  refreshedText,
  refreshResultText,
  sizeText,
  skippedText,
} from './blocklist-words';

/** Refresh with its busy state and its result in words: "Updated: 12,345 domains", "No change", the error. */
function useRefreshWithResult(source: BlocklistSource) {
  const refresh = useRefreshSource();
  const [said, setSaid] = useState<{ ok: boolean; text: string } | null>(null);
  const run = () => {
    setSaid(null);
    refresh.mutate(source.id, {
      onSuccess: (answer) => setSaid({ ok: true, text: refreshResultText(answer) }),
      onError: (err) => setSaid({ ok: false, text: fetchErrorText(err) }),
    });
  };
  const result = refresh.isPending ? { ok: true, text: 'Downloading the list…' } : said;
  return { run, busy: refresh.isPending, result };
}

function SourceCard({ source, canChange }: { source: BlocklistSource; canChange: boolean }) {
  const [renaming, setRenaming] = useState(false);
  const [removing, setRemoving] = useState(false);
  const rename = useRenameSource();
  const remove = useDeleteSource();
  const error = lastErrorText(source);
  const skipped = skippedText(source.skipped_lines);
  const exceptions = exceptionsText(source.allow_count ?? 0);
  const when =
    source.kind === 'url' ? (source.last_refreshed_at ?? source.last_attempt_at) : source.created_at;
  const titleId = `source-${source.id}-title`;
  const refresh = useRefreshWithResult(source);

  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      component="li"
      aria-labelledby={titleId}
      data-testid="source-card"
    >
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" gap="xs">
          <Stack gap={4} style={{ minWidth: 0, flex: '1 1 14rem' }}>
            <Title order={2} fz="lg" id={titleId} style={{ overflowWrap: 'anywhere' }}>
              {source.name}
            </Title>
            {source.url ? (
              <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="source-url">
                {source.url}
              </Text>
            ) : null}
          </Stack>
          <Group gap={6}>
            <Badge variant="light" color="gray" radius="sm">
              {KIND_LABELS[source.kind]}
            </Badge>
            <Badge variant="light" color="hearth" radius="sm" data-testid="source-format">
              {formatText(source)}
            </Badge>
          </Group>
        </Group>
        <Group gap="lg" wrap="wrap">
          <Text fw={600} data-testid="source-count">
            {sizeText(source)}
          </Text>
          {when ? (
            <Tooltip label={exactTime(when)}>
              <Text size="sm" c="dimmed" data-testid="source-refreshed" tabIndex={0}>
                {refreshedText(source)}
              </Text>
            </Tooltip>
          ) : (
            <Text size="sm" c="dimmed" data-testid="source-refreshed">
              {refreshedText(source)}
            </Text>
          )}
        </Group>
        {exceptions ? (
          <Text size="sm" c="dimmed" data-testid="source-exceptions">
            {exceptions}
          </Text>
        ) : null}
        {skipped ? (
          <Text size="sm" c="dimmed" data-testid="source-skipped">
            {skipped}
          </Text>
        ) : null}
        {error ? (
          <Alert color="red" variant="light" icon={<IconAlert />} data-testid="source-error">
            {error}
          </Alert>
        ) : null}
        {canChange ? (
          <Group gap="xs" wrap="wrap">
            {source.kind === 'url' ? (
              <Button
                variant="light"
                size="sm"
                onClick={refresh.run}
                loading={refresh.busy}
                leftSection={<IconRefresh size={16} />}
                aria-label={`Refresh ${source.name}`}
              >
                Refresh
              </Button>
            ) : null}
            <Button
              variant="default"
              size="sm"
              onClick={() => setRenaming(true)}
              aria-label={`Rename ${source.name}`}
            >
              Rename
            </Button>
            <Button
              variant="subtle"
              color="red"
              size="sm"
              leftSection={<IconTrash size={16} />}
              onClick={() => {
                remove.reset();
                setRemoving(true);
              }}
              aria-label={`Remove ${source.name}`}
            >
              Remove
            </Button>
          </Group>
        ) : null}
        {source.kind === 'url' && canChange ? (
          <div aria-live="polite">
            {refresh.result ? (
              <Text size="sm" fw={500} c={refresh.result.ok ? 'teal' : 'red'} data-testid="refresh-result">
                {refresh.result.text}
              </Text>
            ) : null}
          </div>
        ) : null}
      </Stack>
      <RenameDialog
        opened={renaming}
        title={`Rename ${source.name}`}
        label="Name"
        field="name"
        initial={source.name}
        maxLength={NAME_MAX_LENGTH}
        busy={rename.isPending}
        error={rename.error}
        onSave={(name) =>
          rename.mutate(
            { id: source.id, name },
            {
              onSuccess: () => {
                setRenaming(false);
                notifySaved(`The list is now called ${name}.`);
              },
            },
          )
        }
        onClose={() => {
          setRenaming(false);
          rename.reset();
        }}
      />
      <ConfirmDialog
        opened={removing}
        title={`Remove ${source.name}?`}
        confirmLabel="Remove list"
        confirmIcon={<IconTrash size={16} />}
        busy={remove.isPending}
        error={remove.error}
        errorTitle="The list was not removed"
        onConfirm={() =>
          remove.mutate(source.id, {
            onSuccess: () => {
              setRemoving(false);
              notifySaved(`${source.name} was removed.`);
            },
          })
        }
        onClose={() => setRemoving(false)}
      >
        {`Children who have this list stop blocking its ${domainCount(source.domain_count)} (unless another list or their own block list has them). This cannot be undone.`}
      </ConfirmDialog>
    </Card>
  );
}

export function BlocklistsPage() {
  const { isAdmin } = useSession();
  const sources = useBlocklistSources();
  const children = useUsers();
  const [adding, setAdding] = useState(false);
  const items = sources.data?.items;
  const firstChild = children.data?.items[0];

  return (
    <>
      <PageHeader
        title="Blocklists"
        description="Lists of websites to block, shared by the whole household. Each child’s Websites page chooses which lists they get."
        actions={
          isAdmin ? (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
              Add list
            </Button>
          ) : undefined
        }
      />
      <Stack gap="lg">
        {!isAdmin ? (
          <Text c="dimmed" size="sm" data-testid="read-only">
            Only an owner or admin of the household can add, refresh or remove lists.
          </Text>
        ) : null}
        {sources.error && !items ? (
          <ErrorAlert error={sources.error} onRetry={sources.reload} title="Could not load the lists" />
        ) : null}
        {items ? <StaleNotice error={sources.error} /> : null}
        {!items && !sources.error ? (
          <Stack gap="sm" aria-busy="true">
            <Skeleton h={120} radius="lg" />
            <Skeleton h={120} radius="lg" />
          </Stack>
        ) : null}
        {items?.length === 0 ? (
          <Card withBorder radius="lg" py="xl">
            <EmptyState
              icon={<IconBlock size={28} />}
              variant="light"
              title="No lists yet"
              description={
                isAdmin
                  ? 'Add a list of your own, or the web address of a list you trust (the hosts and adblock lists Pi-hole and AdGuard Home use work here).'
                  : 'When an owner or admin adds a list, it appears here.'
              }
            />
          </Card>
        ) : null}
        {items?.length ? (
          <Stack
            gap="md"
            component="ul"
            style={{ listStyle: 'none', margin: 0, padding: 0 }}
            data-testid="source-list"
          >
            {items.map((source) => (
              <SourceCard key={source.id} source={source} canChange={isAdmin} />
            ))}
          </Stack>
        ) : null}
        {items?.length && firstChild ? (
          <Text size="sm" c="dimmed">
            Choose a child’s lists on their Websites page, for example{' '}
            <Anchor component={Link} to={`/children/${encodeURIComponent(firstChild.id)}/websites`}>
              {firstChild.name}’s websites
            </Anchor>
            .
          </Text>
        ) : null}
      </Stack>
      <AddListDialog
        opened={adding}
        onClose={() => setAdding(false)}
        onAdded={(source) => {
          setAdding(false);
          notifySaved(
            source.kind === 'url'
              ? `${source.name} was added; Hearth is downloading it now.`
              : `${source.name} was added with ${domainCount(source.domain_count)}.`,
            'List added',
          );
        }}
      />
    </>
  );
}
