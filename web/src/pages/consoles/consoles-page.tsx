// Game consoles (DESIGN §13): one card per vendor. Not linked, it offers the linking wizard; linked, it
// shows the account, whether the link works, the last sync with Sync now, each imported console with
// its child and what it could not hold, "Add a console" and Unlink.
import { Alert, Badge, Button, Card, Group, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import {
  CONSOLE_PROVIDERS,
  type ConsoleAccountStatus,
  type ConsoleProvider,
  useConsoleStatus,
  useUnlinkConsole,
  useValidateLink,
} from '../../api/consoles';
import { StaleBadge } from '../../components/console-bits';
import { ConfirmDialog } from '../../components/dialogs';
import { IconAlert, IconGamepad, IconPlus, IconUnlink } from '../../components/icons';
import { ErrorAlert, notifySaved, PageHeader, StaleNotice } from '../../components/page';
import { useSession } from '../../session';
import { HEALTH_COLORS, HEALTH_LABELS, linkHealth, statusStale, VENDORS } from './console-words';
import { LinkWizard } from './link-wizard';
import { ImportedConsoles, SyncNow } from './sync-panel';

function consoleNames(status: ConsoleAccountStatus): string {
  const names = status.consoles.map((c) => c.name);
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** What unlinking removes, in words: the token, and the consoles that stop being looked after. */
function unlinkText(provider: ConsoleProvider, status: ConsoleAccountStatus): string {
  const vendor = VENDORS[provider];
  const account = status.account_name
    ? `${status.account_name}’s ${vendor.account}`
    : `the ${vendor.account}`;
  const one = status.consoles.length === 1;
  const consoles = status.consoles.length
    ? ` ${consoleNames(status)} ${one ? 'leaves' : 'leave'} Hearth: no playtime comes in and no routine goes out, and ${one ? 'it shows' : 'they show'} as unenrolled under Devices.`
    : '';
  const limits = status.consoles.length
    ? ` Limits already on the ${one ? 'console stay' : 'consoles stay'} until you change them in the ${vendor.app} app.`
    : '';
  return `Hearth deletes the token it keeps for ${account}.${consoles}${limits} You can link again at any time.`;
}

function LinkedBody({
  provider,
  status,
  canChange,
  onLinkAgain,
  onAddConsole,
}: {
  provider: ConsoleProvider;
  status: ConsoleAccountStatus;
  canChange: boolean;
  onLinkAgain: () => void;
  onAddConsole: () => void;
}) {
  const vendor = VENDORS[provider];
  const health = linkHealth(status);
  const unlink = useUnlinkConsole(provider);
  const [confirming, setConfirming] = useState(false);

  return (
    <Stack gap="md">
      {health === 'expired' ? (
        <Alert
          variant="light"
          color="red"
          icon={<IconAlert />}
          title="The link has expired"
          data-testid="console-expired"
        >
          <Stack gap="xs" align="flex-start">
            <Text size="sm">
              {vendor.company} no longer accepts Hearth’s token (the password changed, or the access was
              removed). Nothing syncs until you link again; your consoles and children stay as they are.
            </Text>
            {canChange ? (
              <Button size="xs" color="red" onClick={onLinkAgain} data-testid={`console-relink-${provider}`}>
                Link again
              </Button>
            ) : null}
          </Stack>
        </Alert>
      ) : null}
      {health === 'failing' ? (
        <Alert
          variant="light"
          color="yellow"
          icon={<IconAlert />}
          title={`${vendor.company} is not answering as it should`}
          data-testid="console-failing"
        >
          {status.error ?? 'The last sync did not work.'} Hearth keeps trying every 5 minutes.
        </Alert>
      ) : null}
      <SyncNow
        provider={provider}
        status={status}
        canSync={canChange && status.consoles.length > 0 && health !== 'expired'}
      />
      <Stack gap="xs">
        <Text size="sm" fw={500}>
          Consoles
        </Text>
        <ImportedConsoles provider={provider} status={status} />
      </Stack>
      {canChange ? (
        <Group gap="xs" wrap="wrap">
          <Button
            variant="light"
            leftSection={<IconPlus size={16} />}
            onClick={onAddConsole}
            disabled={health === 'expired'}
            data-testid={`console-add-${provider}`}
          >
            Add a console
          </Button>
          <Button
            variant="subtle"
            color="red"
            leftSection={<IconUnlink size={16} />}
            onClick={() => {
              unlink.reset();
              setConfirming(true);
            }}
            data-testid="console-unlink"
            aria-label={`Unlink ${vendor.name}`}
          >
            Unlink
          </Button>
        </Group>
      ) : null}
      <ConfirmDialog
        opened={confirming}
        title={`Unlink ${vendor.name}?`}
        confirmLabel="Unlink"
        confirmIcon={<IconUnlink size={16} />}
        busy={unlink.isPending}
        error={unlink.error}
        errorTitle={`${vendor.name} was not unlinked`}
        onConfirm={() =>
          unlink.mutate(undefined, {
            onSuccess: () => {
              setConfirming(false);
              notifySaved(`${vendor.name} is unlinked; Hearth deleted its token.`);
            },
          })
        }
        onClose={() => setConfirming(false)}
      >
        <Text size="sm" data-testid="console-unlink-text">
          {unlinkText(provider, status)}
        </Text>
      </ConfirmDialog>
    </Stack>
  );
}

function ConsoleCard({ provider, canChange }: { provider: ConsoleProvider; canChange: boolean }) {
  const vendor = VENDORS[provider];
  const status = useConsoleStatus(provider);
  const validate = useValidateLink(provider);
  const [wizard, setWizard] = useState<0 | 2 | null>(null);
  const data = status.data;
  const linked = data?.linked === true;
  const titleId = `console-${provider}-title`;

  // Opening the page checks once that the stored token still works (a cheap call to the vendor).
  const { mutate: check } = validate;
  useEffect(() => {
    if (linked) check();
  }, [linked, check]);

  const health = data && linked ? linkHealth(data) : null;
  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      component="section"
      aria-labelledby={titleId}
      data-testid={`console-card-${provider}`}
    >
      <Stack gap="md">
        <Group justify="space-between" align="flex-start" gap="sm">
          <Group gap="md" wrap="nowrap" style={{ minWidth: 0, flex: '1 1 14rem' }}>
            <ThemeIcon variant="light" color={vendor.color} size="xl" radius="md">
              <IconGamepad size={24} />
            </ThemeIcon>
            <Stack gap={2} style={{ minWidth: 0 }}>
              <Title order={2} fz="lg" id={titleId}>
                {vendor.name}
              </Title>
              {data ? (
                <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="console-account">
                  {linked
                    ? data.account_name
                      ? `Linked to ${data.account_name}’s ${vendor.account}`
                      : `Linked to a ${vendor.account}`
                    : 'Not linked'}
                </Text>
              ) : null}
            </Stack>
          </Group>
          {health && data ? (
            <Group gap={6}>
              <Badge
                variant="light"
                color={HEALTH_COLORS[health]}
                radius="sm"
                size="lg"
                data-testid="console-status"
                data-state={health}
              >
                {HEALTH_LABELS[health]}
              </Badge>
              {health !== 'expired' && statusStale(data) ? <StaleBadge /> : null}
            </Group>
          ) : null}
        </Group>
        {status.error && !data ? (
          <ErrorAlert error={status.error} onRetry={status.reload} title={`Could not load ${vendor.name}`} />
        ) : null}
        {data ? <StaleNotice error={status.error} /> : null}
        {!data && !status.error ? <Skeleton h={64} radius="md" aria-busy="true" /> : null}
        {data && !linked ? (
          <Stack gap="sm" align="flex-start">
            <Text size="sm">{vendor.pitch}</Text>
            {canChange ? (
              <Button onClick={() => setWizard(0)} data-testid={`console-link-${provider}`}>
                Link {vendor.name}
              </Button>
            ) : (
              <Text size="sm" c="dimmed">
                An owner or admin of the household can link it.
              </Text>
            )}
          </Stack>
        ) : null}
        {data && linked ? (
          <LinkedBody
            provider={provider}
            status={data}
            canChange={canChange}
            onLinkAgain={() => setWizard(0)}
            onAddConsole={() => setWizard(2)}
          />
        ) : null}
      </Stack>
      <LinkWizard
        provider={provider}
        opened={wizard !== null}
        startAt={wizard ?? 0}
        onClose={() => setWizard(null)}
      />
    </Card>
  );
}

export function ConsolesPage() {
  const { isAdmin } = useSession();
  return (
    <>
      <PageHeader
        title="Game consoles"
        description="Consoles run no Hearth agent: link your family’s Xbox or Nintendo account once, add each console for a child, and Hearth writes their routine to it and brings their playtime home."
      />
      <Stack gap="lg">
        {CONSOLE_PROVIDERS.map((provider) => (
          <ConsoleCard key={provider} provider={provider} canChange={isAdmin} />
        ))}
      </Stack>
    </>
  );
}
